// How an editor's text compares with a file's on disk: a byte-order mark is no difference (editors
// hide it), and a file that is not there (yet) reads as empty. Used wherever Fathom must not write
// over unsaved editor changes (edits, rewrites). Imports nothing of ours.
import fs from 'node:fs';

function withoutMark(text: string): string {
  return text.startsWith('\ufeff') ? text.slice(1) : text;
}

/** The text an editor shows for the file: its UTF-8 text without a byte-order mark; empty when it cannot be read. */
export function diskText(absolutePath: string): string {
  try {
    return withoutMark(fs.readFileSync(absolutePath, 'utf8'));
  } catch {
    return '';
  }
}

/** Whether an editor's text for the file differs from the file's. */
export function differsFromDisk(editorText: string, absolutePath: string): boolean {
  return withoutMark(editorText) !== diskText(absolutePath);
}
