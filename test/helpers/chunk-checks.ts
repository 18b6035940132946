// Invariants every chunking must keep, as a list of problems (empty when all hold): chunks sorted
// and disjoint, only whitespace between them, texts byte-exact, positions consistent with the
// bytes, nothing over the budget unless flagged oversized, and (given the file's syntax tree) no
// boundary inside a token. Shared by the chunk tests and the property test.
import type { Tree } from 'web-tree-sitter';
import type { FileChunks } from '../../src/index/syntax/chunk.js';
import { SourceText } from '../../src/index/syntax/source-text.js';

function isWhitespaceByte(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x0b;
}

function blankBytes(bytes: Uint8Array, start: number, end: number): boolean {
  for (let index = start; index < end; index++) {
    if (index < 3 && start === 0 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) continue; // a BOM
    if (!isWhitespaceByte(bytes[index]!)) return false;
  }
  return true;
}

export function chunkProblems(bytes: Uint8Array, file: FileChunks, budget: number, tree?: Tree): string[] {
  const problems: string[] = [];
  const source = new SourceText(bytes);
  let previousEnd = 0;
  for (const [index, chunk] of file.chunks.entries()) {
    const where = `${file.path} chunk ${index} [${chunk.startByte}, ${chunk.endByte})`;
    if (chunk.endByte <= chunk.startByte) problems.push(`${where}: empty`);
    if (chunk.startByte < previousEnd) problems.push(`${where}: overlaps the previous chunk (ends at ${previousEnd})`);
    else if (!blankBytes(bytes, previousEnd, chunk.startByte)) problems.push(`${where}: non-whitespace left out before it`);
    previousEnd = chunk.endByte;
    const startUnit = source.unitAt(chunk.startByte);
    const endUnit = source.unitAt(chunk.endByte);
    if (source.byteOffset(startUnit) !== chunk.startByte || source.byteOffset(endUnit) !== chunk.endByte)
      problems.push(`${where}: boundary inside a character`);
    if (chunk.text !== source.text.slice(startUnit, endUnit)) problems.push(`${where}: text is not the bytes of its range`);
    const start = source.position(startUnit);
    const end = source.position(endUnit);
    if (start.line !== chunk.start.line || start.character !== chunk.start.character || end.line !== chunk.end.line || end.character !== chunk.end.character) {
      problems.push(`${where}: positions ${JSON.stringify([chunk.start, chunk.end])} disagree with the bytes ${JSON.stringify([start, end])}`);
    }
    if (!chunk.oversized && chunk.endByte - chunk.startByte > budget)
      problems.push(`${where}: ${chunk.endByte - chunk.startByte} bytes, over the budget ${budget} but not flagged oversized`);
    if (tree && chunk.method === 'syntax') {
      const first = tree.rootNode.descendantForIndex(startUnit, startUnit);
      const last = tree.rootNode.descendantForIndex(endUnit - 1, endUnit - 1);
      if (first && first.startIndex !== startUnit && first.childCount === 0 && first.startIndex < startUnit)
        problems.push(`${where}: starts inside the token ${first.type} at ${first.startIndex}`);
      if (last && last.endIndex !== endUnit && last.childCount === 0 && last.endIndex > endUnit)
        problems.push(`${where}: ends inside the token ${last.type} ending at ${last.endIndex}`);
      if (chunk.oversized) {
        const node = tree.rootNode.descendantForIndex(startUnit, endUnit - 1);
        if (!node || node.startIndex !== startUnit || node.endIndex !== endUnit) problems.push(`${where}: oversized but not one node`);
      }
    }
  }
  if (!blankBytes(bytes, previousEnd, bytes.length)) problems.push(`${file.path}: non-whitespace left out after the last chunk`);
  return problems;
}
