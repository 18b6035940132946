// The engine's syntax pass (src/engine/syntax-pass.ts): each product equals what the index's own
// worker pool made before (tags, ranking terms, semantic chunks, embedded by the pass with a
// static model as the model's own embedder embeds them, the stored tree), for every kind
// of file (a language with tags, one without a grammar, a parse error, an empty file); one read
// and one parse serve every index that awaits the file; a product is never given for other
// content than the file has now; a buffer's bytes are never held; a budget too small to hold
// anything costs parses, never answers.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { SyntaxPass, SyntaxPassPool } from '../../src/engine/syntax-pass.js';
import { ChunkTermsPool } from '../../src/index/ranking/chunk-terms-pool.js';
import { defaultModelDir } from '../../src/engine/semantic-models.js';
import { placeOf } from '../../src/index/semantic/embedded-chunks.js';
import { openModelFolder } from '../../src/index/semantic/model-folder.js';
import { StaticEmbedder } from '../../src/index/semantic/static-embedder.js';
import { contextualizedText } from '../../src/index/syntax/chunk.js';
import { ChunkPool } from '../../src/index/syntax/chunk-pool.js';
import { GrammarSet } from '../../src/index/syntax/grammars.js';
import { grammarStoreId, TreeStore, treeKey } from '../../src/index/syntax/tree-store.js';
import { tempDir } from '../helpers/fixture.js';

const files: Record<string, string> = {
  'app/views.py':
    'import os\n\n\ndef render(request):\n    """Renders the page."""\n    return helper(request.path)\n\n\nclass View:\n    def get(self):\n        return render(self)\n',
  'src/math.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport const twice = (x: number) => add(x, x);\n',
  'lib/list.c':
    '#include <stdlib.h>\n\n/* Frees a list. */\nvoid list_free(struct list *head)\n{\n\twhile (head) {\n\t\tstruct list *next = head->next;\n\t\tfree(head);\n\t\thead = next;\n\t}\n}\n',
  'broken.ts': 'export function (a, { return ;\n',
  'README.md': '# Title\n\nSome words about the project.\n',
  'empty.py': '',
};

const root = tempDir();
for (const [file, text] of Object.entries(files)) {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), text);
}
const storeFolder = path.join(tempDir(), 'trees');
let stored = 0;
const pool = new SyntaxPassPool({ size: 2, treeStoreFolder: storeFolder, onStored: (bytes) => (stored += bytes) });
const chunkPool = new ChunkPool(1);
const termsPool = new ChunkTermsPool(1);
after(() => {
  pool.close();
  chunkPool.close();
  termsPool.close();
});

/** The file set's hashes, changed by the tests as a watcher would. */
const hashes = new Map(Object.keys(files).map((file) => [file, `h-${file}`]));
const absolute = (file: string): string => path.join(root, file);

test("syntax pass: each product equals what the index's own pool makes", async () => {
  const pass = new SyntaxPass(pool, (file) => hashes.get(file));
  for (const file of Object.keys(files)) {
    const request = { path: file, absolutePath: absolute(file) };
    assert.deepEqual(await pass.tags(request), await chunkPool.tags(request), `${file}: tags`);
    assert.deepEqual(await pass.terms({ ...request, budgetBytes: 4000 }), await termsPool.terms({ ...request, budgetBytes: 4000 }), `${file}: terms`);
    assert.deepEqual(
      await pass.chunk({ ...request, options: { budgetBytes: 1500 } }),
      await chunkPool.chunk({ ...request, options: { budgetBytes: 1500 } }),
      `${file}: chunks`,
    );
  }
  // With a static model the pass embeds the chunks it cut: each chunk's place and text hash, and
  // the vector the model's own embedder makes of its header and text.
  const model = openModelFolder(defaultModelDir);
  const embedder = new StaticEmbedder(model);
  for (const file of Object.keys(files)) {
    const request = { path: file, absolutePath: absolute(file) };
    const chunks = await chunkPool.chunk({ ...request, options: { budgetBytes: 1500 } });
    const embedded = await pass.chunk({ ...request, options: { budgetBytes: 1500, embed: { model, table: embedder.embeddingTable } } });
    assert.ok('vectors' in embedded, `${file}: embedded`);
    if (!('vectors' in embedded)) continue;
    assert.deepEqual(
      embedded.chunks,
      chunks.chunks.map((chunk) => placeOf(chunk, createHash('sha256').update(chunk.text).digest('hex'))),
      `${file}: places and text hashes`,
    );
    const expected = await embedder.embed(chunks.chunks.map(contextualizedText), 'document');
    assert.equal(embedded.vectors.length, expected.length * embedded.dimensions, `${file}: one vector a chunk`);
    expected.forEach((vector, at) =>
      assert.deepEqual(embedded.vectors.subarray(at * embedded.dimensions, (at + 1) * embedded.dimensions), vector, `${file}: chunk ${at}'s vector`),
    );
  }
  // A programming file's tree is in the store under the key the structural workers look up.
  const grammars = new GrammarSet();
  const state = await grammars.load('python');
  assert.equal(state.state, 'loaded');
  if (state.state !== 'loaded') return;
  const result = await pass.storeTree({ path: 'app/views.py', absolutePath: absolute('app/views.py') });
  assert.equal(result.parsed, true);
  assert.ok(result.stored > 0 && stored >= result.stored);
  assert.ok(new TreeStore(storeFolder).has(treeKey(grammarStoreId(state.grammar.spec), fs.readFileSync(absolute('app/views.py')))));
  // Known to be there from the file set's content hash alone (what `fathom index` asks, reading nothing).
  const contentHash = createHash('sha256')
    .update(fs.readFileSync(absolute('app/views.py')))
    .digest('hex');
  const byHash = new SyntaxPass(pool, (file) => (file === 'app/views.py' ? contentHash : undefined));
  assert.equal(byHash.hasTree(state.grammar.spec, 'app/views.py'), true);
  assert.equal(byHash.hasTree(state.grammar.spec, 'src/other.py'), false, 'not in the file set');
  assert.equal(new SyntaxPass(pool, () => 'f'.repeat(64)).hasTree(state.grammar.spec, 'app/views.py'), false, 'other content');
  // Stored once: the next pass finds it there and parses nothing for it.
  assert.deepEqual(await pass.storeTree({ path: 'app/views.py', absolutePath: absolute('app/views.py') }), { stored: 0, parsed: false });
});

/** A pass with the four indexes registered, each awaiting the files in its set. */
function passForEveryIndex(): { pass: SyntaxPass; awaiting: Record<'tags' | 'terms' | 'chunks' | 'tree', Set<string>> } {
  const pass = new SyntaxPass(pool, (file) => hashes.get(file));
  const awaiting = { tags: new Set<string>(), terms: new Set<string>(), chunks: new Set<string>(), tree: new Set<string>() };
  pass.register('tags', { awaits: (file) => awaiting.tags.has(file), want: { definitionsOnly: false } });
  pass.register('terms', { awaits: (file) => awaiting.terms.has(file), want: { budgetBytes: 4000 } });
  pass.register('chunks', { awaits: (file) => awaiting.chunks.has(file), want: { budgetBytes: 1500 } });
  pass.register('tree', { awaits: (file) => awaiting.tree.has(file), want: true });
  return { pass, awaiting };
}

test('syntax pass: one read and one parse serve every index that awaits the file', async () => {
  const { pass, awaiting } = passForEveryIndex();
  const code = ['app/views.py', 'src/math.ts', 'lib/list.c'];
  for (const file of code) for (const set of Object.values(awaiting)) set.add(file);
  // The graph asks first (as its build does), the others after: each takes its product from the graph's pass.
  const tags = await Promise.all(code.map((file) => pass.tags({ path: file, absolutePath: absolute(file) })));
  const jobsAfterTags = pass.totals.jobs;
  assert.equal(jobsAfterTags, code.length);
  for (const file of code) {
    awaiting.tags.delete(file);
    awaiting.terms.delete(file);
    const terms = await pass.terms({ path: file, absolutePath: absolute(file), budgetBytes: 4000 });
    assert.deepEqual(terms, await termsPool.terms({ path: file, absolutePath: absolute(file), budgetBytes: 4000 }));
    awaiting.chunks.delete(file);
    assert.deepEqual(
      await pass.chunk({ path: file, absolutePath: absolute(file), options: { budgetBytes: 1500 } }),
      await chunkPool.chunk({ path: file, absolutePath: absolute(file), options: { budgetBytes: 1500 } }),
    );
    awaiting.tree.delete(file);
    await pass.storeTree({ path: file, absolutePath: absolute(file) });
  }
  assert.equal(pass.totals.jobs, code.length, 'no file read twice');
  assert.ok(pass.totals.parses <= code.length, `${pass.totals.parses} parses for ${code.length} files`);
  assert.deepEqual(pass.shared, { tags: 0, terms: 3, chunks: 3, tree: 3 });
  assert.deepEqual(pass.dropped, { tags: 0, terms: 0, chunks: 0, tree: 0 }, 'nothing made for an index was thrown away');
  assert.equal(
    tags[0]!.definitions.some((definition) => definition.name === 'render'),
    true,
  );
  pass.dispose();
});

test('syntax pass: indexes that take a file off their lists and ask for it in the same turn share one pass', async () => {
  const { pass } = passForEveryIndex();
  const code = ['app/views.py', 'src/math.ts', 'lib/list.c'];
  // As the graph, the ranking and the semantic index do: off the list first, then the ask, all
  // three in one turn (before this, each ran a pass of its own: 9 jobs).
  const answers = await Promise.all(
    code.flatMap((file) => {
      const request = { path: file, absolutePath: absolute(file) };
      return [pass.tags(request), pass.terms({ ...request, budgetBytes: 4000 }), pass.chunk({ ...request, options: { budgetBytes: 1500 } })];
    }),
  );
  assert.equal(pass.totals.jobs, code.length, 'one pass a file');
  for (const [at, file] of code.entries()) {
    const request = { path: file, absolutePath: absolute(file) };
    assert.deepEqual(answers[at * 3], await chunkPool.tags(request), `${file}: tags`);
    assert.deepEqual(answers[at * 3 + 1], await termsPool.terms({ ...request, budgetBytes: 4000 }), `${file}: terms`);
    assert.deepEqual(answers[at * 3 + 2], await chunkPool.chunk({ ...request, options: { budgetBytes: 1500 } }), `${file}: chunks`);
  }
  assert.deepEqual(pass.dropped, { tags: 0, terms: 0, chunks: 0, tree: 0 }, 'nothing made twice and thrown away');
  pass.dispose();
});

test('syntax pass: a product is given only for the content it was made from; buffers are never held', async () => {
  const pass = new SyntaxPass(pool, (file) => hashes.get(file));
  const awaitsTerms = new Set(['src/math.ts']);
  pass.register('terms', { awaits: (file) => awaitsTerms.has(file), want: { budgetBytes: 4000 } });
  await pass.tags({ path: 'src/math.ts', absolutePath: absolute('src/math.ts') });
  // The file changes before the ranking asks: the held terms are of the old text.
  fs.writeFileSync(absolute('src/math.ts'), 'export function renamed(): number {\n  return 1;\n}\n');
  hashes.set('src/math.ts', 'h-changed');
  const terms = await pass.terms({ path: 'src/math.ts', absolutePath: absolute('src/math.ts'), budgetBytes: 4000 });
  assert.deepEqual(terms, await termsPool.terms({ path: 'src/math.ts', absolutePath: absolute('src/math.ts'), budgetBytes: 4000 }));
  assert.equal(pass.shared.terms, 0);
  assert.equal(pass.dropped.terms, 1, 'the terms of the old text were dropped, and counted');
  // An editor's buffer: answered from its bytes, nothing held for the others.
  const jobs = pass.totals.jobs;
  const bytes = Buffer.from('export const fromBuffer = 1;\n');
  const fromBuffer = await pass.tags({ path: 'src/math.ts', bytes });
  assert.deepEqual(fromBuffer, await chunkPool.tags({ path: 'src/math.ts', bytes }));
  assert.equal(pass.totals.jobs, jobs + 1);
  const again = await pass.terms({ path: 'src/math.ts', absolutePath: absolute('src/math.ts'), budgetBytes: 4000 });
  assert.deepEqual(again, terms);
  assert.equal(pass.shared.terms, 0, 'nothing of the buffer was held');
  fs.writeFileSync(absolute('src/math.ts'), files['src/math.ts']!);
  hashes.set('src/math.ts', 'h-src/math.ts');
  pass.dispose();
});

test('syntax pass: with no room to hold anything, every index still gets its own right answer', async () => {
  const pass = new SyntaxPass(pool, (file) => hashes.get(file), { holdBytes: 0, leadWaitMs: 1 });
  pass.register('chunks', { awaits: () => true, want: { budgetBytes: 1500 } });
  await pass.tags({ path: 'app/views.py', absolutePath: absolute('app/views.py') });
  const chunks = await pass.chunk({ path: 'app/views.py', absolutePath: absolute('app/views.py'), options: { budgetBytes: 1500 } });
  assert.deepEqual(chunks, await chunkPool.chunk({ path: 'app/views.py', absolutePath: absolute('app/views.py'), options: { budgetBytes: 1500 } }));
  assert.equal(pass.shared.chunks, 0);
  assert.equal(pass.dropped.chunks, 1, 'held over the budget: dropped at once');
  assert.equal(pass.totals.jobs, 2);
  pass.dispose();
});

test('syntax pass: a file that vanished is an error, and the pass goes on', async () => {
  const pass = new SyntaxPass(pool, (file) => hashes.get(file));
  await assert.rejects(
    pass.tags({ path: 'gone.py', absolutePath: absolute('gone.py') }),
    (error: unknown) => error instanceof Error && /ENOENT|no such file/.test(error.message),
  );
  const fine = await pass.tags({ path: 'app/views.py', absolutePath: absolute('app/views.py') });
  assert.ok(fine.definitions.length > 0);
  pass.dispose();
});
