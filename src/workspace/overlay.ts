// Unsaved editor buffers (textDocument/didOpen|didChange|didClose), keyed by absolute path. Later
// indexes read through it so that what a user just typed is searchable before it is saved.
// Positions are LSP's default: line and UTF-16 code unit, which is how JavaScript strings count.
import { FathomError } from '../base/errors.js';

export interface EditorBuffer {
  path: string;
  languageId: string;
  version: number;
  text: string;
}

export interface Position {
  line: number;
  character: number;
}

export type TextChange = { text: string } | { range: { start: Position; end: Position }; text: string };

function offsetAt(text: string, position: Position): number {
  let line = 0;
  let offset = 0;
  while (line < position.line) {
    const newline = text.indexOf('\n', offset);
    if (newline < 0) return text.length;
    offset = newline + 1;
    line += 1;
  }
  const lineEnd = text.indexOf('\n', offset);
  const limit = lineEnd < 0 ? text.length : lineEnd;
  return Math.min(offset + position.character, limit);
}

export class BufferOverlay {
  private readonly buffers = new Map<string, EditorBuffer>();
  /** How many clients hold each buffer open: one client leaving must not drop another's buffer. */
  private readonly holders = new Map<string, number>();
  private readonly listeners = new Set<(path: string) => void>();

  open(buffer: EditorBuffer): void {
    this.buffers.set(buffer.path, { ...buffer });
    this.holders.set(buffer.path, (this.holders.get(buffer.path) ?? 0) + 1);
    this.notify(buffer.path);
  }

  change(path: string, version: number, changes: readonly TextChange[]): void {
    const buffer = this.buffers.get(path);
    if (!buffer) throw new FathomError('invalidParams', `didChange for ${path}, which is not open`);
    let text = buffer.text;
    for (const change of changes) {
      if (!('range' in change) || change.range === undefined) {
        text = change.text;
        continue;
      }
      const start = offsetAt(text, change.range.start);
      const end = Math.max(start, offsetAt(text, change.range.end));
      text = text.slice(0, start) + change.text + text.slice(end);
    }
    buffer.text = text;
    buffer.version = version;
    this.notify(path);
  }

  /** One holder closes the buffer; it goes when the last holder has closed it. */
  close(path: string): void {
    const holders = (this.holders.get(path) ?? 0) - 1;
    if (holders > 0) {
      this.holders.set(path, holders);
      return;
    }
    this.holders.delete(path);
    if (this.buffers.delete(path)) this.notify(path);
  }

  get(path: string): EditorBuffer | undefined {
    return this.buffers.get(path);
  }

  openPaths(): string[] {
    return [...this.buffers.keys()];
  }

  get size(): number {
    return this.buffers.size;
  }

  onChange(listener: (path: string) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private notify(path: string): void {
    for (const listener of this.listeners) listener(path);
  }
}
