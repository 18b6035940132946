// `fathom mcp [PATH]`: an MCP server on stdio for agents, every mechanism a tool, over a
// connection to the daemon. The MCP SDK (and zod) load only here. Nothing but MCP may go to stdout.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultCacheRoot, readPackageVersion } from '../../base/places.js';
import { noMoreArguments, withClient, workspaceAround } from '../client.js';
import { clientOptions, type Command } from '../command.js';
import { rootOf } from '../workspace-root.js';

export const command: Command = {
  usage: `  mcp [PATH]                          an MCP server on stdio for agents: every mechanism a tool
                                      (search, the graph, staged rewrite, edits, the debugger, status)`,
  async run(_name, args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { socket: clientOptions.socket, 'no-daemon': clientOptions['no-daemon'] },
    });
    const [target, ...extra] = positionals;
    noMoreArguments(extra);
    const defaultRoot = workspaceAround(rootOf(target));
    const { serveMcp } = await import('../mcp.js');
    await withClient(values, async ({ connection, lost }) =>
      serveMcp({ connection, lost, defaultRoot, resultsFolder: path.join(defaultCacheRoot(), 'mcp-results'), version: readPackageVersion() }),
    );
    return 0;
  },
};
