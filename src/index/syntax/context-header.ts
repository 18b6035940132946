// The context header of a chunk: the lines that travel with its text and are embedded with it
// (the identity of the chunk for a reader who sees nothing else). Owns the header's format:
//   <path> (<Language>)
//   scope: UserService.getUser
//   in: export class UserService extends Base { … }      one line per enclosing entity, bodies collapsed
//   doc: Fetches a user by id.                             when the doc is not inside the chunk
//   uses: import { Db } from './db'                         imports whose names the chunk's text uses
//   defines: getUser(id: string): User, setUser(…)          entities inside the chunk
//   neighbours: constructor(db: Db) | deleteUser(id)        what the previous and next chunks hold
// Called by chunk-file.ts.
import { firstAtOrAfter } from '../../base/sorted.js';
import type { Entity, ImportStatement } from './entities.js';
import { oneLine } from './entities.js';

export interface HeaderInput {
  path: string;
  languageName: string | undefined;
  scope: string[];
  enclosing: Entity[];
  defined: Entity[];
  /** The chunk's code-unit range. */
  start: number;
  end: number;
  imports: ImportUses;
  previousLabel: string | undefined;
  nextLabel: string | undefined;
}

const maxImports = 8;
const maxDefined = 6;

function collapsedSignature(entity: Entity): string {
  return entity.bodyStart !== undefined ? `${entity.signature} …` : entity.signature;
}

function isWordCode(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f || code === 0x24;
}

/** Where each import's names are used in the file: sorted code-unit offsets of whole-word uses. */
export class ImportUses {
  private readonly uses: Array<{ statement: ImportStatement; at: number[] }>;

  constructor(imports: readonly ImportStatement[], text: string) {
    this.uses = imports.map((statement) => {
      const at: number[] = [];
      for (const name of statement.names) {
        if (name.length === 0) continue;
        for (let index = text.indexOf(name); index >= 0; index = text.indexOf(name, index + 1)) {
          if (index >= statement.start && index < statement.end) continue;
          if ((index === 0 || !isWordCode(text.charCodeAt(index - 1))) && !isWordCode(text.charCodeAt(index + name.length))) at.push(index);
        }
      }
      at.sort((a, b) => a - b);
      return { statement, at };
    });
  }

  /** The imports (outside [start, end)) with a use inside [start, end). */
  usedIn(start: number, end: number): ImportStatement[] {
    const used: ImportStatement[] = [];
    for (const { statement, at } of this.uses) {
      if (at.length === 0 || (statement.start < end && statement.end > start)) continue;
      const first = firstAtOrAfter(at, start);
      if (first < at.length && at[first]! < end) used.push(statement);
    }
    return used;
  }
}

export function buildHeader(input: HeaderInput): string {
  const lines = [input.languageName ? `${input.path} (${input.languageName})` : input.path];
  if (input.scope.length > 0) lines.push(`scope: ${input.scope.join('.')}`);
  for (const entity of input.enclosing) lines.push(`in: ${collapsedSignature(entity)}`);
  const main = input.defined.length === 1 ? input.defined[0] : input.enclosing[input.enclosing.length - 1];
  if (main && main.doc && !(main.docStart >= input.start && main.docStart < input.end)) lines.push(`doc: ${main.doc}`);
  const used = input.imports.usedIn(input.start, input.end);
  if (used.length > 0)
    lines.push(
      `uses: ${used
        .slice(0, maxImports)
        .map((statement) => statement.text)
        .join('; ')}${used.length > maxImports ? ` (+${used.length - maxImports})` : ''}`,
    );
  if (input.defined.length > 0) {
    const shown = input.defined.slice(0, maxDefined).map((entity) => oneLine(entity.signature, 100));
    lines.push(`defines: ${shown.join(', ')}${input.defined.length > maxDefined ? ` (+${input.defined.length - maxDefined})` : ''}`);
  }
  if (input.previousLabel !== undefined || input.nextLabel !== undefined)
    lines.push(`neighbours: ${input.previousLabel ?? '(start of file)'} | ${input.nextLabel ?? '(end of file)'}`);
  return lines.join('\n');
}
