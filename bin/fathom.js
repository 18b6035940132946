#!/usr/bin/env node
// The `fathom` command: a shim that runs the compiled CLI (build first: `npm run build`).
// `fathom serve` goes straight to the daemon's own entry, which loads none of the client commands.
const entry = process.argv[2] === 'serve' ? '../dist/src/cli/serve-main.js' : '../dist/src/cli/main.js';
import(entry).catch((error) => {
  process.stderr.write(`fathom: cannot start (did you run \`npm run build\`?): ${error?.message ?? error}\n`);
  process.exit(1);
});
