#!/usr/bin/env node
// The `fathom` command: a shim that runs the compiled CLI (build first: `npm run build`).
import('../dist/src/cli/main.js').catch((error) => {
  process.stderr.write(`fathom: cannot start (did you run \`npm run build\`?): ${error?.message ?? error}\n`);
  process.exit(1);
});
