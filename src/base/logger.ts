// The process-wide logger. stdout is the JSON-RPC transport, so logs go to stderr (or the file the
// daemon's stderr was redirected to). Level from FATHOM_LOG: error | warn | info | debug.

type Level = 'error' | 'warn' | 'info' | 'debug';
const ranks: Record<Level, number> = { error: 0, warn: 1, info: 2, debug: 3 };

function threshold(): number {
  const wanted = (process.env.FATHOM_LOG ?? 'info') as Level;
  return ranks[wanted] ?? ranks.info;
}

function write(level: Level, message: string): void {
  if (ranks[level] > threshold()) return;
  process.stderr.write(`${new Date().toISOString()} ${level} ${message}\n`);
}

export const log = {
  error: (message: string) => write('error', message),
  warn: (message: string) => write('warn', message),
  info: (message: string) => write('info', message),
  debug: (message: string) => write('debug', message),
};
