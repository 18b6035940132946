// How the CLI gets every result of a command that pages (grep, sg, refs): page after page from the
// daemon, each asked for with the previous one's cursor (`after`, docs/protocol.md "Pages"; refs:
// an offset) and
// handed to the printer as it arrives, until no cursor comes back or `--max` is reached. Grep's
// pages are `paged` requests (the daemon stops at the page's size, counting nothing after it);
// the last request of a `--max` cap is not, so that its answer counts every result past the cap,
// as a single capped answer does (structural search always stops at its limit and counts no
// total). Called by main.ts.
import type { ResultCursor } from '../protocol/methods.js';

/** What a page's answer holds that the loop reads. */
export interface PageAnswer<Cursor = ResultCursor> {
  /** Results in all (grep; a page: its own); absent: the results shown are all that is known. */
  total?: number;
  /** Files with results (absent: not counted). */
  files?: number;
  truncated: boolean;
  next?: Cursor;
}

/** What to ask for one page: its size, whether it is a page (else the capped last request), and where it starts. */
export interface PageRequest<Cursor = ResultCursor> {
  maxResults: number;
  paged: boolean;
  after?: Cursor;
}

export interface PagesDone {
  /** Results printed. */
  shown: number;
  /** Results in all: all of them, or past a cap as the last answer counted them (without totals: those shown). */
  total: number;
  /** Files with results (a file cut between two pages counts once). */
  files: number;
  /** The cap (`--max`) left results out. */
  capped: boolean;
  /** Requests made. */
  pages: number;
}

/**
 * Results a page asks for: each page is a search of the files after the cursor, so fewer, larger
 * pages cost less in all, and the first page's size is how soon printing starts.
 * FATHOM_CLI_PAGE_SIZE sets another (tests cut pages at every kind of place with a small one).
 */
export function pageSize(): number {
  const value = Number(process.env.FATHOM_CLI_PAGE_SIZE);
  return Number.isInteger(value) && value >= 1 ? value : 10_000;
}

/**
 * Fetches the pages: `fetch` asks the daemon for one, `shown` says how many results it holds and
 * the path of its first and last, `print` prints it. With `max` undefined every result is fetched.
 */
export async function eachPage<R extends PageAnswer<Cursor>, Cursor = ResultCursor>(options: {
  max: number | undefined;
  fetch: (page: PageRequest<Cursor>) => Promise<R>;
  paths: (answer: R) => { count: number; first?: string; last?: string };
  print: (answer: R) => void;
  size?: number;
}): Promise<PagesDone> {
  const size = options.size ?? pageSize();
  const done: PagesDone = { shown: 0, total: 0, files: 0, capped: false, pages: 0 };
  let after: Cursor | undefined;
  let lastPath: string | undefined;
  for (;;) {
    const left = options.max === undefined ? Number.POSITIVE_INFINITY : options.max - done.shown;
    // The last request of a cap is an ordinary answer: it counts what lies past the cap.
    const last = left <= size;
    const answer = await options.fetch({ maxResults: last ? left : size, paged: !last, ...(after === undefined ? {} : { after }) });
    done.pages += 1;
    const { count, first, last: lastOfPage } = options.paths(answer);
    options.print(answer);
    done.shown += count;
    done.total += last ? (answer.total ?? count) : count;
    // A file the previous page ended in and this one goes on with is one file.
    done.files += (answer.files ?? 0) - (first !== undefined && first === lastPath ? 1 : 0);
    if (lastOfPage !== undefined) lastPath = lastOfPage;
    if (last) {
      done.capped = answer.truncated;
      return done;
    }
    if (!answer.truncated || answer.next === undefined) return done;
    after = answer.next;
  }
}
