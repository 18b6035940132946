// Editor buffers: incremental LSP edits (UTF-16 positions) applied in order give the text the editor
// holds; a full-text change replaces it; edits to a closed buffer are refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BufferOverlay, type TextChange } from '../../src/workspace/overlay.js';

const range = (startLine: number, startCharacter: number, endLine: number, endCharacter: number) => ({
  start: { line: startLine, character: startCharacter },
  end: { line: endLine, character: endCharacter },
});

const cases: { name: string; text: string; changes: TextChange[]; expected: string }[] = [
  { name: 'insert', text: 'let x;\n', changes: [{ range: range(0, 4, 0, 4), text: 'y' }], expected: 'let yx;\n' },
  { name: 'replace across lines', text: 'a\nb\nc\n', changes: [{ range: range(0, 1, 2, 0), text: '-' }], expected: 'a-c\n' },
  { name: 'delete a line', text: 'one\ntwo\nthree\n', changes: [{ range: range(1, 0, 2, 0), text: '' }], expected: 'one\nthree\n' },
  { name: 'append at the end', text: 'end', changes: [{ range: range(0, 3, 0, 3), text: '\nmore' }], expected: 'end\nmore' },
  {
    name: 'several edits in order',
    text: 'abc',
    changes: [
      { range: range(0, 0, 0, 1), text: 'X' },
      { range: range(0, 3, 0, 3), text: 'Y' },
    ],
    expected: 'XbcY',
  },
  { name: 'UTF-16 columns after an astral character', text: 'a😀b\n', changes: [{ range: range(0, 3, 0, 4), text: 'B' }], expected: 'a😀B\n' },
  { name: 'a character past the line end clamps to it', text: 'ab\ncd\n', changes: [{ range: range(0, 10, 0, 10), text: '!' }], expected: 'ab!\ncd\n' },
  { name: 'a line past the end appends', text: 'ab', changes: [{ range: range(5, 0, 5, 0), text: '!' }], expected: 'ab!' },
  { name: 'full text replacement', text: 'old', changes: [{ text: 'new' }], expected: 'new' },
];

for (const { name, text, changes, expected } of cases) {
  test(`overlay: ${name}`, () => {
    const overlay = new BufferOverlay();
    overlay.open({ path: '/w/a.ts', languageId: 'typescript', version: 1, text });
    overlay.change('/w/a.ts', 2, changes);
    assert.equal(overlay.get('/w/a.ts')?.text, expected);
    assert.equal(overlay.get('/w/a.ts')?.version, 2);
  });
}

test('overlay: a change to a buffer that is not open is refused; close releases it', () => {
  const overlay = new BufferOverlay();
  assert.throws(() => overlay.change('/w/none.ts', 1, [{ text: 'x' }]), /not open/);
  overlay.open({ path: '/w/a.ts', languageId: '', version: 1, text: '' });
  overlay.close('/w/a.ts');
  assert.equal(overlay.size, 0);
});
