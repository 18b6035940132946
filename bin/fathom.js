#!/bin/sh
":" /*
# Read by sh first, then by Node (to Node the lines up to the comment's end are a string and a comment).
# NODE_EXTRA_CA_CERTS makes every Node start read that CA bundle (~35 ms here, more than the CLI's
# own modules); a client command speaks no TLS, so it runs without it, kept in FATHOM_EXTRA_CA_CERTS
# for the daemon it may start (src/cli/connect.ts). Commands that run a daemon or the team store in
# this process keep it.
if [ -n "$NODE_EXTRA_CA_CERTS" ]; then
  for argument in "$@"; do
    case "$argument" in serve | mcp | team | --no-daemon) exec node "$0" "$@" ;; esac
  done
  FATHOM_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS
  export FATHOM_EXTRA_CA_CERTS
  unset NODE_EXTRA_CA_CERTS
fi
exec node "$0" "$@"
*/
// The `fathom` command: a shim that runs the compiled CLI (build first: `npm run build`).
// `fathom serve` goes straight to the daemon's own entry, which loads none of the client commands;
// `fathom --version` is answered here from package.json, loading no module of the CLI at all
// (an agent that checks the version pays a bare Node start, not the CLI's ESM graph).
import { readFileSync } from 'node:fs';
import { URL } from 'node:url';

const [first, ...rest] = process.argv.slice(2);
if ((first === '--version' || first === '-v') && rest.length === 0) {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  const entry = first === 'serve' ? '../dist/src/cli/serve-main.js' : '../dist/src/cli/main.js';
  import(entry).catch((error) => {
    process.stderr.write(`fathom: cannot start (did you run \`npm run build\`?): ${error?.message ?? error}\n`);
    process.exit(1);
  });
}
