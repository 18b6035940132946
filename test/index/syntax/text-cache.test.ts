// TextCache: a file's decoded text is handed out again while its bytes are the same, decoded anew
// when they change, and the least recently used go first when the cache is full; the regions a
// structural search derives from a text follow the text (a changed file is scanned again).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GrammarSet } from '../../../src/index/syntax/grammars.js';
import { TextCache } from '../../../src/index/syntax/text-cache.js';
import { searchRanges } from '../../../src/structural/region-parse.js';
import { compileSearch } from '../../../src/structural/rule.js';

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');

describe('TextCache', () => {
  test('the same bytes give the same text; other bytes a new one', () => {
    const cache = new TextCache(1 << 20);
    const first = cache.text('a.c', bytes('int a;\n'));
    assert.equal(cache.text('a.c', bytes('int a;\n')), first, 'equal bytes read again');
    const changed = cache.text('a.c', bytes('int b;\n'));
    assert.notEqual(changed, first);
    assert.equal(changed.text, 'int b;\n');
    assert.equal(cache.size, 1);
    assert.equal(cache.text('a.c', bytes('int b;\n')), changed);
  });

  test('the least recently used file goes first; a file over a quarter of the cache is not kept', () => {
    // ASCII: each file costs twice its bytes (the bytes and a one-byte text).
    const cache = new TextCache(400);
    const a = cache.text('a', bytes('a'.repeat(50)));
    cache.text('b', bytes('b'.repeat(50)));
    cache.text('c', bytes('c'.repeat(50)));
    cache.text('d', bytes('d'.repeat(50)));
    assert.equal(cache.text('a', bytes('a'.repeat(50))), a, 'a used again: now the most recent');
    cache.text('e', bytes('e'.repeat(50)));
    assert.equal(cache.size, 4, 'b went');
    assert.equal(cache.text('a', bytes('a'.repeat(50))), a);
    const large = cache.text('large', bytes('x'.repeat(60)));
    assert.notEqual(cache.text('large', bytes('x'.repeat(60))), large, 'not kept');
    assert.equal(cache.size, 4);
  });

  test('a file under the smallest size kept is decoded each time', () => {
    const cache = new TextCache(1 << 20, 16);
    assert.notEqual(cache.text('small', bytes('int a;')), cache.text('small', bytes('int a;')));
    const large = cache.text('large', bytes('int a; int b; int c;'));
    assert.equal(cache.text('large', bytes('int a; int b; int c;')), large);
    assert.equal(cache.size, 1);
  });

  test('a changed file is scanned for regions again', async () => {
    const grammars = new GrammarSet();
    const state = await grammars.load('c');
    if (state.state !== 'loaded') throw new Error('no C grammar');
    const search = compileSearch(grammars, state.grammar, { rule: { pattern: 'needle($A)' } });
    const cache = new TextCache(1 << 20);
    const filler = Array.from({ length: 40 }, (_, at) => `int f${at}(void)\n{\n\treturn ${at};\n}\n`).join('');
    const before = `${filler}int g(void)\n{\n\treturn needle(1);\n}\n`;
    const ranges = searchRanges('c', cache.text('f.c', bytes(before)), search);
    assert.deepEqual(ranges, [[filler.length, before.length]]);
    assert.deepEqual(searchRanges('c', cache.text('f.c', bytes(before)), search), ranges, 'kept');
    const after = `int g(void)\n{\n\treturn needle(2);\n}\n${filler}`;
    assert.deepEqual(searchRanges('c', cache.text('f.c', bytes(after)), search), [[0, after.length - filler.length]], 'scanned again');
  });
});
