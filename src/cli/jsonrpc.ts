// vscode-jsonrpc for the CLI's client path, loaded on first use with require: `fathom --version`,
// --help and usage errors never load it, and a command that connects loads it as CommonJS (an ES
// import of a CommonJS package makes Node lex every file it re-exports for their names: about
// 10 ms of CPU of a client command that costs 100; bench/cli-bench.ts). The daemon, MCP and
// --no-daemon's in-process daemon import it as usual: they load far more anyway.
import { createRequire } from 'node:module';

type JsonRpc = typeof import('vscode-jsonrpc/node');

const require = createRequire(import.meta.url);
let loaded: JsonRpc | undefined;

/** The vscode-jsonrpc/node module (the same instance an ES import of it gets). */
export function jsonrpc(): JsonRpc {
  loaded ??= require('vscode-jsonrpc/node') as JsonRpc;
  return loaded;
}
