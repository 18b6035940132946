// What a `fathom` command is: its block of the usage, and what it runs with the arguments after its
// name (parsed by the command itself against its own options: any other option is refused). One
// module per command under commands/ (graph.ts answers to five names, edit.ts and trust.ts to
// two); main.ts names them and loads only the one asked for (all of them only for `fathom --help`).
import type { ParseArgsConfig } from 'node:util';

export interface Command {
  /** Its block of the usage: synopsis lines, then what it does (indented as the others). */
  usage: string;
  /** The exit code (-1: keep running, as serve does). */
  run(name: string, args: string[]): Promise<number>;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** The options of every command that asks the daemon: --json, --socket, --no-daemon. */
export const clientOptions = {
  json: { type: 'boolean' },
  socket: { type: 'string' },
  'no-daemon': { type: 'boolean' },
} as const satisfies Options;

/** -g/--glob: ripgrep's globs (base/path-glob.ts), the same in every command; --glob-filter, its older long name. */
export const globOptions = {
  glob: { type: 'string', short: 'g', multiple: true },
  'glob-filter': { type: 'string', multiple: true },
} as const satisfies Options;
