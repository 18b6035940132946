// The `fathom` command: finds the command named, loads its module (commands/<name>.ts) and runs it
// with the arguments after its name; `--version` and `--help` need no command module at all. `serve`
// runs the daemon; every other command is a client of it (over the socket, starting a daemon when
// none runs, or in-process with --no-daemon). Human output by default, --json for scripts and
// agents (shapes in docs/protocol.md), a progress bar on a TTY. The thin client path: this file
// and the client commands' static imports load no daemon, engine, MCP code or package (only
// connect.ts and the CLI's own JSON-RPC client, base/, the protocol's names); `serve`, --no-daemon,
// `mcp` and `edit --patch` import what they run when they run (test/cli/cli-thin.test.ts,
// test/layers.test.ts).
import { errorMessage } from '../base/errors.js';
import { defaultSocketPath, readPackageVersion } from '../base/places.js';
import type { Command } from './command.js';
import { RpcError } from './rpc-client.js';
import { UsageError } from './usage-error.js';

/** Every command, in the usage's order: the names it answers to and its module. */
const commands: Array<{ names: readonly string[]; load: () => Promise<{ command: Command }> }> = [
  { names: ['serve'], load: () => import('./commands/serve.js') },
  { names: ['attach'], load: () => import('./commands/attach.js') },
  { names: ['index'], load: () => import('./commands/index.js') },
  { names: ['status'], load: () => import('./commands/status.js') },
  { names: ['files'], load: () => import('./commands/files.js') },
  { names: ['merkle'], load: () => import('./commands/merkle.js') },
  { names: ['search'], load: () => import('./commands/search.js') },
  { names: ['debug'], load: () => import('./commands/debug.js') },
  { names: ['model'], load: () => import('./commands/model.js') },
  { names: ['trust', 'untrust'], load: () => import('./commands/trust.js') },
  { names: ['team'], load: () => import('./commands/team.js') },
  { names: ['export'], load: () => import('./commands/export.js') },
  { names: ['grep'], load: () => import('./commands/grep.js') },
  { names: ['chunks'], load: () => import('./commands/chunks.js') },
  { names: ['symbols'], load: () => import('./commands/symbols.js') },
  { names: ['outline'], load: () => import('./commands/outline.js') },
  { names: ['def', 'refs', 'callers', 'callees', 'impact'], load: () => import('./commands/graph.js') },
  { names: ['sg'], load: () => import('./commands/sg.js') },
  { names: ['diagnostics', 'edit'], load: () => import('./commands/edit.js') },
  { names: ['mcp'], load: () => import('./commands/mcp.js') },
  { names: ['stop'], load: () => import('./commands/stop.js') },
];

const footer = `options for client commands:
  --json          machine-readable output (see docs/protocol.md)
  --socket PATH   the daemon's socket (default: ${defaultSocketPath()})
  --no-daemon     run the work in this process instead of the daemon
  -h, --help      a command's own usage (fathom grep --help)
PATH defaults to the workspace containing the current folder: its git root, else the folder itself,
but never /, a top-level folder (/etc, /usr, /tmp…) or your home folder or above unless named as PATH.
A FILE outside any git repository is answered on its own: nothing else in its folder is indexed.
grep, search and symbols take several PATHs: in one workspace they narrow it; in several (or with
--all, every workspace the daemon holds) they ask each, and print each path after its root's.`;

/** The whole usage: every command's block (each module loaded for it), then the common options. */
async function overview(): Promise<string> {
  const blocks = await Promise.all(commands.map(async (entry) => (await entry.load()).command.usage));
  return `usage: fathom <command> [options]\n\ncommands:\n${blocks.join('\n')}\n\n${footer}`;
}

/** A command's usage: its block and the common options. */
function usageOf(command: Command): string {
  return `usage: fathom ${command.usage.trimStart()}\n\n${footer}`;
}

/** Whether the arguments ask for help (before any `--`, after which everything is an argument). */
function asksHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

async function main(argv: string[]): Promise<number> {
  const [first] = argv;
  if (first === '--version' || first === '-v') return (print(readPackageVersion()), 0);
  if (first === undefined) return (process.stderr.write(`${await overview()}\n`), 2);
  if (first === '--help' || first === '-h' || first === 'help') {
    const named = first === 'help' ? commands.find((entry) => entry.names.includes(argv[1] ?? '')) : undefined;
    print(named ? usageOf((await named.load()).command) : await overview());
    return 0;
  }
  // The command is the first argument that names one; options given before it are its own
  // (`fathom --json status` as `fathom status --json`).
  const at = argv.findIndex((arg) => commands.some((entry) => entry.names.includes(arg)));
  if (at < 0) {
    const unknown = argv.find((arg) => !arg.startsWith('-'));
    throw new NoCommand(unknown === undefined ? 'no command given' : `unknown command: ${unknown}`);
  }
  const name = argv[at]!;
  const args = [...argv.slice(0, at), ...argv.slice(at + 1)];
  const { command } = await commands.find((entry) => entry.names.includes(name))!.load();
  if (asksHelp(args)) return (print(usageOf(command)), 0);
  try {
    return await command.run(name, args);
  } catch (error) {
    if (isUsageError(error)) throw new UsageError(`${errorMessage(error)}\n\n${usageOf(command)}`);
    throw error;
  }
}

/** No command named (or an unknown one): answered with the whole usage. */
class NoCommand extends UsageError {}

function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

function isUsageError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return error instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'));
}

// `fathom … | head`: a closed pipe ends the command quietly, as it does for grep.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  async (error: unknown) => {
    if (error instanceof NoCommand) {
      process.stderr.write(`fathom: ${error.message}\n\n${await overview()}\n`);
    } else if (isUsageError(error)) {
      process.stderr.write(`fathom: ${errorMessage(error)}\n`);
    } else {
      const detail = error instanceof RpcError ? `${error.message} (code ${error.code})` : errorMessage(error);
      process.stderr.write(`fathom: ${detail}\n`);
    }
    // As ripgrep: 1 means "nothing found", 2 an error (usage or otherwise).
    process.exitCode = 2;
  },
);
