// `fathom merkle [PATH] [--path P]`: the file set's Merkle root hash, or a path's subtree hashes.
import { parseArgs } from 'node:util';
import { Methods, type MerkleResult } from '../../protocol/methods.js';
import { noMoreArguments, print, request, withClient } from '../client.js';
import { clientOptions, type Command } from '../command.js';
import { rootOf } from '../workspace-root.js';

export const command: Command = {
  usage: `  merkle [PATH] [--path P]            the Merkle root hash, or a path's subtree hashes`,
  async run(_name, args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...clientOptions, path: { type: 'string' } } });
    const [target, ...extra] = positionals;
    noMoreArguments(extra);
    const root = rootOf(target);
    await withClient(values, async ({ connection }) => {
      const result = await request<MerkleResult>(connection, Methods.merkle, { root, ...(values.path ? { path: values.path } : {}) }, true);
      if (values.json) return print(result);
      print(`${result.path || '.'} ${result.kind} ${result.hash ?? '-'}`);
      for (const child of result.children ?? []) print(`  ${child.hash} ${child.kind === 'dir' ? `${child.name}/` : child.name}`);
    });
    return 0;
  },
};
