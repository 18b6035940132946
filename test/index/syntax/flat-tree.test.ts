// Flat trees (index/syntax/flat-tree.ts): a tree flattened into arrays holds every node of the live
// tree, in document order, with the same type, range, named / extra / missing flags, parent and
// children, whether flattened through web-tree-sitter's exported wasm functions (the fast walk) or
// through TreeCursor; over the syntax fixture of every language, files with syntax errors (ERROR and
// MISSING nodes), comments (extras) and text past ASCII.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import type { Node, Tree } from 'web-tree-sitter';
import { FlatTree, type FlatNode } from '../../../src/index/syntax/flat-tree.js';
import { GrammarSet, parseSource, wasmBinding } from '../../../src/index/syntax/grammars.js';
import { SourceText } from '../../../src/index/syntax/source-text.js';

const grammars = new GrammarSet();
const fixtures = new URL('../../../../test/fixtures/syntax/', import.meta.url);

/** Every node of a live tree in preorder. */
function liveNodes(tree: Tree): Node[] {
  const nodes: Node[] = [];
  const cursor = tree.walk();
  for (;;) {
    nodes.push(cursor.currentNode);
    if (cursor.gotoFirstChild()) continue;
    let done = false;
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) {
        done = true;
        break;
      }
    }
    if (done) break;
  }
  cursor.delete();
  return nodes;
}

function describeNode(node: Node | FlatNode): string {
  return JSON.stringify([
    node.type,
    node.startIndex,
    node.endIndex,
    node.isNamed,
    node.isExtra,
    node.isMissing,
    node.childCount,
    node.namedChildCount,
    node.parent ? [node.parent.type, node.parent.startIndex, node.parent.endIndex] : null,
  ]);
}

function assertSame(tree: Tree, flat: FlatTree, label: string): void {
  const live = liveNodes(tree);
  assert.equal(flat.size, live.length, `${label}: node count`);
  live.forEach((node, index) => {
    const ours = flat.node(index);
    assert.equal(describeNode(ours), describeNode(node), `${label}: node ${index}`);
    assert.deepEqual(
      ours.children.map((child) => child.startIndex),
      node.children.map((child) => child!.startIndex),
      `${label}: children of node ${index}`,
    );
    const named = Array.from({ length: node.namedChildCount }, (_, at) => node.namedChild(at)!.startIndex);
    assert.deepEqual(
      Array.from({ length: ours.namedChildCount }, (_, at) => ours.namedChild(at)!.startIndex),
      named,
      `${label}: named children of node ${index}`,
    );
  });
  // Subtrees nest: every node's subtree ends within its parent's.
  for (let index = 1; index < flat.size; index++) {
    const parent = flat.parents[index]!;
    assert.ok(parent < index && flat.next[index]! <= flat.next[parent]!, `${label}: node ${index} inside its parent`);
  }
}

async function check(language: string, text: string, label: string): Promise<FlatTree> {
  const state = await grammars.load(language);
  assert.equal(state.state, 'loaded', label);
  if (state.state !== 'loaded') throw new Error(label);
  const source = new SourceText(Buffer.from(text));
  const tree = parseSource(grammars, state.grammar, source)!;
  try {
    assert.ok(wasmBinding(), 'web-tree-sitter exposes the functions of the fast walk');
    const fast = FlatTree.of(tree, source.text, wasmBinding());
    assertSame(tree, fast, `${label} (fast walk)`);
    assertSame(tree, FlatTree.of(tree, source.text, undefined), `${label} (cursor walk)`);
    // The tree is still whole after the fast walk (the cursor it moved is its own).
    assert.equal(liveNodes(tree).length, fast.size, `${label}: the tree is untouched`);
    return fast;
  } finally {
    tree.delete();
  }
}

describe('flat trees', () => {
  // Disabled grammars (grammars/manifest.json) do not load.
  for (const id of fs.readdirSync(fixtures).filter((id) => !grammars.table.languages.get(id)?.disabled)) {
    test(`the ${id} fixture`, async () => {
      const folder = new URL(`${id}/`, fixtures);
      const files = fs.readdirSync(folder);
      assert.ok(files.length > 0);
      for (const file of files) await check(id, fs.readFileSync(new URL(file, folder), 'utf8'), `${id}/${file}`);
    });
  }

  test('syntax errors: ERROR and MISSING nodes keep their flags', async () => {
    const flat = await check('c', 'int f(int x) {\n  if (x > 1 { return x; }\n  int y = (x + ;\n  return y\n}\n', 'broken C');
    const types = Array.from({ length: flat.size }, (_, index) => flat.node(index));
    assert.ok(
      types.some((node) => node.type === 'ERROR'),
      'an ERROR node',
    );
    assert.ok(
      types.some((node) => node.isMissing),
      'a MISSING node',
    );
  });

  test('comments are extras; text past ASCII keeps UTF-16 ranges', async () => {
    const flat = await check('typescript', '// héllo wörld\nconst s = "日本語"; /* ✓ */ let t = s + `${s}😀`;\n', 'comments and Unicode');
    const nodes = Array.from({ length: flat.size }, (_, index) => flat.node(index));
    assert.equal(nodes.filter((node) => node.isExtra).length, 2, 'both comments');
    assert.ok(
      nodes.some((node) => node.text === '"日本語"'),
      'a string node by its UTF-16 range',
    );
  });

  test('a deep tree (nesting past the cursor stack’s first capacity)', async () => {
    await check('python', `x = ${'('.repeat(200)}1${')'.repeat(200)}\n`, 'deep nesting');
  });
});
