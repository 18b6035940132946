// The daemon's own entry: `fathom serve [options]` as bin/fathom.js routes it, and what the CLI
// spawns when no daemon answers (connect.ts). Loads only serve's module and, through it, the
// daemon: none of the client commands main.ts imports (tens of ms of every daemon start).
import { errorMessage } from '../base/errors.js';
import { command, usage as serveUsage } from './commands/serve.js';
import { UsageError } from './usage-error.js';

const args = process.argv.slice(2);
if (args[0] === 'serve') args.shift();

try {
  await command.run('serve', args);
} catch (error) {
  const usage = error instanceof UsageError || (error as { code?: unknown }).code?.toString().startsWith('ERR_PARSE_ARGS');
  process.stderr.write(`fathom: ${errorMessage(error)}${usage ? `\n\nusage:\n${serveUsage}` : ''}\n`);
  process.exit(2);
}
