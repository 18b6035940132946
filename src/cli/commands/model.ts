// `fathom model use DIR|ID [PATH] | model off [PATH] | model pull ID`: the workspace's embedding
// model for semantic and hybrid search.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Methods, type ModelPullResult, type ModelUseResult } from '../../protocol/methods.js';
import { noMoreArguments, print, request, withClient } from '../client.js';
import { clientOptions, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { rootOf } from '../workspace-root.js';

export const command: Command = {
  usage: `  model use DIR|ID [PATH] | model off [PATH] | model pull ID
                                      the workspace's embedding model for semantic and hybrid
                                      search (a folder in transformers.js' layout, or a pulled
                                      id); off by default; pull downloads where a network exists`,
  async run(_name, args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: clientOptions });
    const [sub, ...rest] = positionals;
    if (sub !== 'use' && sub !== 'off' && sub !== 'pull') throw new UsageError('model needs use DIR|ID, off, or pull ID');
    const model = sub === 'off' ? undefined : rest.shift();
    if (sub !== 'off' && model === undefined) throw new UsageError(`model ${sub} needs ${sub === 'use' ? 'a model folder or id' : 'a model id'}`);
    const [target, ...extra] = rest;
    noMoreArguments(sub === 'pull' ? rest : extra);
    const root = sub === 'pull' ? undefined : rootOf(target);
    await withClient(values, async ({ connection }) => {
      if (sub === 'pull') {
        const result = await request<ModelPullResult>(connection, Methods.modelPull, { id: model }, true);
        print(values.json ? result : `${result.id} is in ${result.dir}; use it with: fathom model use ${result.id}`);
        return;
      }
      const chosen = sub === 'off' ? null : fs.existsSync(model!) ? path.resolve(model!) : model!;
      const result = await request<ModelUseResult>(connection, Methods.modelUse, { root, model: chosen }, true);
      print(
        values.json
          ? result
          : result.model
            ? `${result.root}: semantic search with ${result.model.dir} (${result.model.dimensions}-d, ${result.model.dtype}, id ${result.model.id}${result.model.hybridWeight === undefined ? '; no measured hybrid weight: auto ranks words lexically' : `; hybrid weight ${result.model.hybridWeight}`})`
            : `${result.root}: semantic search off`,
      );
    });
    return 0;
  },
};
