// Renders LSP `$/progress` values as a one-line progress bar on a terminal (stderr), and nothing
// when stderr is not a terminal (scripts and agents read --json output instead).
import type { ProgressValue } from '../protocol/methods.js';

export class ProgressBar {
  private title = '';
  private drawn = false;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  get enabled(): boolean {
    return this.stream.isTTY === true;
  }

  update(value: ProgressValue): void {
    if (!this.enabled) return;
    if (value.kind === 'begin') this.title = value.title;
    if (value.kind === 'end') {
      this.clear();
      return;
    }
    const percentage = 'percentage' in value ? value.percentage : undefined;
    const message = value.message ?? '';
    const width = 24;
    const bar =
      percentage === undefined ? '' : `[${'#'.repeat(Math.round((percentage / 100) * width)).padEnd(width, '-')}] ${String(percentage).padStart(3)}% `;
    const columns = this.stream.columns ?? 100;
    const line = `${this.title}: ${bar}${message}`.slice(0, columns - 1);
    this.stream.write(`\r\x1b[2K${line}`);
    this.drawn = true;
  }

  clear(): void {
    if (this.drawn) this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }
}
