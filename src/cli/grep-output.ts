// `fathom grep`'s output, page by page as the answers arrive (pages.ts): ripgrep's lines
// (`path:line:text`, context lines `path-line-text`, `--` between groups that do not follow each
// other), or with --json one JSON object per matching line and a summary line at the end. Context
// lines the previous page printed (the after-context of its last line) are not printed again
// before the next page's first line. In a search across roots each path follows its root's label.
// Called by main.ts.
import type { GrepResult } from '../protocol/methods.js';
import { labelled } from './scope.js';

export class GrepPrinter {
  /** The last line printed, across pages. */
  private previous: { path: string; line: number } | undefined;

  /** `root` and `label` for an answer across roots: JSON lines carry the root, text lines the label before the path (scope.ts). */
  constructor(private readonly options: { json: boolean; withContext: boolean; root?: string; label?: string }) {}

  /** Prints one page's lines. */
  page(result: GrepResult): void {
    if (result.matches.length === 0) return;
    if (this.options.json) {
      const root = this.options.root;
      process.stdout.write(`${result.matches.map((match) => JSON.stringify(root === undefined ? match : { root, ...match })).join('\n')}\n`);
      return;
    }
    const out: string[] = [];
    const push = (path: string, line: number, text: string, separator: string): void => {
      const previous = this.previous;
      // Shown already: the after-context of the previous page's last line.
      if (separator === '-' && previous && previous.path === path && line <= previous.line) return;
      if (this.options.withContext && previous && (previous.path !== path || previous.line + 1 !== line)) out.push('--');
      out.push(`${labelled(this.options.label ?? '', path)}${separator}${line}${separator}${text}`);
      this.previous = { path, line };
    };
    for (const match of result.matches) {
      for (const context of match.before ?? []) push(match.path, context.line, context.text, '-');
      push(match.path, match.line, match.text, ':');
      for (const context of match.after ?? []) push(match.path, context.line, context.text, '-');
    }
    process.stdout.write(`${out.join('\n')}\n`);
  }
}
