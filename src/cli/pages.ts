// How the CLI gets every result of a command that pages (grep, sg, refs): page after page from the
// daemon, each asked for with the previous one's cursor (`after`, docs/protocol.md "Pages"; refs:
// an offset) and handed to the printer as it arrives, until no cursor comes back or `--max` is
// reached. Grep's
// pages are `paged` requests (the daemon stops at the page's size, counting nothing after it);
// the last request of a `--max` cap is not, so that its answer counts every result past the cap,
// as a single capped answer does (structural search always stops at its limit and counts no
// total). The next page is asked for before the one that came is printed, so the daemon searches
// while the CLI prints. Called by main.ts.
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
 * Results a page asks for: each page is a search of the files after the cursor (planned and
 * listed again: on the kernel, 15–20 ms a page of `mutex_(lock|unlock)\(`), so later pages are
 * larger; the first page's size is how soon printing starts. FATHOM_CLI_PAGE_SIZE sets one size
 * for every page (tests cut pages at every kind of place with a small one).
 */
export function pageSizes(): { first: number; later: number } {
  const value = Number(process.env.FATHOM_CLI_PAGE_SIZE);
  if (Number.isInteger(value) && value >= 1) return { first: value, later: value };
  return { first: 10_000, later: 50_000 };
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
}): Promise<PagesDone> {
  const sizes = pageSizes();
  const done: PagesDone = { shown: 0, total: 0, files: 0, capped: false, pages: 0 };
  let lastPath: string | undefined;
  /** The request for the page after `shown` results, from `after`. */
  const ask = (shown: number, after: Cursor | undefined): { last: boolean; answer: Promise<R> } => {
    // (At most 100,000, the daemon's bound for sg's and refs' answers.)
    const size = done.pages === 0 ? sizes.first : sizes.later;
    const left = options.max === undefined ? Number.POSITIVE_INFINITY : options.max - shown;
    // The last request of a cap is an ordinary answer: it counts what lies past the cap.
    const last = left <= size;
    return { last, answer: options.fetch({ maxResults: last ? left : size, paged: !last, ...(after === undefined ? {} : { after }) }) };
  };
  let pending = ask(0, undefined);
  for (;;) {
    const { last } = pending;
    const answer = await pending.answer;
    done.pages += 1;
    const { count, first, last: lastOfPage } = options.paths(answer);
    const more = !last && answer.truncated && answer.next !== undefined;
    // The next page is asked for before this one is printed: the daemon searches while we print.
    if (more) pending = ask(done.shown + count, answer.next);
    options.print(answer);
    done.shown += count;
    done.total += last ? (answer.total ?? count) : count;
    // A file the previous page ended in and this one goes on with is one file.
    done.files += (answer.files ?? 0) - (first !== undefined && first === lastPath ? 1 : 0);
    if (lastOfPage !== undefined) lastPath = lastOfPage;
    if (last) done.capped = answer.truncated;
    if (!more) return done;
  }
}
