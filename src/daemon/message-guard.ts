// The checks every message from a client passes before vscode-jsonrpc dispatches it, and the
// answers the daemon gives itself when one fails: a frame that cannot be read (frame-reader.ts's
// FrameError), a message that is neither request, notification nor response, and a request whose
// id is already in flight on the same connection. Called by server.ts once per connection; owns
// what each failure costs the connection (docs/protocol.md, "Errors"):
//   - a body that is not JSON: ParseError (id null), the connection goes on;
//   - a frame over the limit: InvalidRequest (with the request's id when its first KiB names one);
//     its bytes are dropped unread, then a socket connection closes, a stdio one goes on;
//   - broken framing (a header that cannot be read, or longer than 8 KiB): ParseError, then the
//     connection closes (the stream cannot be trusted to be back in step) once the requests read
//     before it are answered, or after `drainMs`;
//   - a request id in flight already: InvalidRequest for the second, the first is answered as
//     usual (vscode-jsonrpc would let the second replace the first in its queue, unanswered).
//     Ids are told apart as JSON-RPC does: 1 and "1" are two. vscode-jsonrpc's queue keys requests
//     by String(id), so the second of two such in flight at once is passed on under an id of the
//     guard's own, and its answer written with the client's id again.
import type { DataCallback, Disposable, Message, MessageReader, MessageWriter } from 'vscode-jsonrpc/node';
import { errorMessage } from '../base/errors.js';
import { log } from '../base/logger.js';
import { ErrorCodes } from '../protocol/errors.js';
import { FrameError } from './frame-reader.js';

export interface GuardOptions {
  /** Ends the connection (after the answer that says why was written). */
  close: () => void;
  /** What a frame over the limit costs: 'close' the connection (a socket), or 'skip' it (stdio, whose client owns the process). */
  oversizedFrames: 'close' | 'skip';
  /** Where the limit is set, for the answer. */
  limitSource: string;
  /** The client's framing broke (the connection is closed right after): a stdio daemon then exits promptly. */
  onBrokenFraming?: () => void;
}

type Id = string | number;

/** A request id as JSON-RPC tells ids apart: 1 and "1" are two. */
const idKey = (id: Id): string => `${typeof id}:${id}`;
const isId = (value: unknown): value is Id => typeof value === 'string' || typeof value === 'number';

/**
 * How long a connection whose framing broke waits for the answers to requests read before the
 * break (they were read whole; a client deserves them). Seconds, not a fraction of one: on a cold
 * machine a daemon's first status takes over half a second (stop 40's CI lost three that way). A
 * stdio daemon exits at the latest a second after this, should its writer be stuck.
 */
export const drainMs = 3_000;

/** Refusals logged: at most one line a second, so that a client that reconnects to be refused again and again cannot fill the log. */
const refusalLog = { lastAt: 0, unlogged: 0 };

function logRefusal(line: string): void {
  const now = Date.now();
  if (now - refusalLog.lastAt < 1_000) {
    refusalLog.unlogged += 1;
    return;
  }
  log.warn(`${line}${refusalLog.unlogged > 0 ? ` (and ${refusalLog.unlogged} more refusals not logged)` : ''}`);
  refusalLog.lastAt = now;
  refusalLog.unlogged = 0;
}

/** The reader and writer vscode-jsonrpc gets: the reader passes on only messages that passed; the writer notes answers. */
export function guardConnection(reader: MessageReader, writer: MessageWriter, options: GuardOptions): { reader: MessageReader; writer: MessageWriter } {
  // Requests read and not yet answered: by the client's id (idKey), the id vscode-jsonrpc was given;
  // and by that id as vscode-jsonrpc keys its queue (String(id): 1 and "1" are one key there), the client's.
  const inFlight = new Map<string, Id>();
  const passedOn = new Map<string, Id>();
  let aliases = 0;
  /** The id vscode-jsonrpc is given for a request of the client's `id`: the same, unless its queue would take it for another in flight. */
  const admit = (id: Id): Id => {
    let given: Id = id;
    while (passedOn.has(String(given))) given = `fathom-guard:${(aliases += 1)}`;
    inFlight.set(idKey(id), given);
    passedOn.set(String(given), id);
    return given;
  };
  const forget = (id: Id): void => {
    const given = inFlight.get(idKey(id));
    inFlight.delete(idKey(id));
    if (given !== undefined) passedOn.delete(String(given));
  };
  let drained: (() => void)[] = [];
  /** Resolves once no request read is unanswered, or after `ms`. */
  const answeredOrAfter = (ms: number): Promise<void> =>
    inFlight.size === 0
      ? Promise.resolve()
      : new Promise((resolve) => {
          const timer = setTimeout(resolve, ms);
          timer.unref();
          drained.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
  const reply = (code: number, message: string, id: Id | null = null, data?: unknown): Promise<void> =>
    writer.write({ jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } } as Message).catch(() => undefined);

  reader.onError((error) => {
    if (!(error instanceof FrameError)) {
      log.debug(`client stream: ${errorMessage(error)}`);
      return;
    }
    const problem = error.problem;
    if (problem.kind === 'notJson') {
      void reply(ErrorCodes.ParseError, `parse error: ${problem.message}`);
    } else if (problem.kind === 'tooLarge') {
      const found = leadingRequestId(problem.head.toString('utf8'));
      const id = found !== null && !inFlight.has(idKey(found)) ? found : null;
      const closing = options.oversizedFrames === 'close';
      logRefusal(`a client sent a frame of ${problem.length} bytes (limit ${problem.limit}): dropped${closing ? ', connection closed' : ''}`);
      const answered = reply(
        ErrorCodes.InvalidRequest,
        `a message of ${problem.length} bytes is over the daemon's limit of ${problem.limit} bytes (${options.limitSource})${closing ? '; the connection is closed' : '; it was not read'}`,
        id,
        { frameBytes: problem.length, maxFrameBytes: problem.limit },
      );
      if (closing) void answered.finally(options.close);
    } else {
      logRefusal(`a client's framing broke (${problem.message}): connection closed`);
      // Told at once, not after the answer is written: the writer may wait behind answers queued before it.
      options.onBrokenFraming?.();
      void reply(ErrorCodes.ParseError, `bad frame: ${problem.message}`)
        .then(() => answeredOrAfter(drainMs))
        .finally(options.close);
    }
  });

  const guardedReader: MessageReader = {
    onError: reader.onError,
    onClose: reader.onClose,
    onPartialMessage: reader.onPartialMessage,
    dispose: () => reader.dispose(),
    listen: (callback: DataCallback): Disposable =>
      reader.listen((message) => {
        const candidate = message as unknown as Record<string, unknown>;
        const id = candidate?.id;
        const validId = isId(id);
        const hasMethod = typeof candidate?.method === 'string';
        const isResponse = validId && !('method' in candidate) && ('result' in candidate || 'error' in candidate);
        if (typeof candidate !== 'object' || candidate === null || Array.isArray(candidate)) {
          void reply(ErrorCodes.InvalidRequest, 'a message must be a JSON object (batches are not supported)');
        } else if (!hasMethod && !isResponse) {
          void reply(ErrorCodes.InvalidRequest, "a message needs a string 'method' (or a response's 'result' or 'error')", validId ? id : null);
        } else if ('id' in candidate && !validId && hasMethod && id !== null) {
          void reply(ErrorCodes.InvalidRequest, "'id' must be a string or a number");
        } else if (hasMethod && validId && (candidate.method as string).startsWith('$/')) {
          // LSP: a request whose method starts with '$/' is answered MethodNotFound ('$/' methods are notifications here).
          void reply(ErrorCodes.MethodNotFound, `${candidate.method as string} is a notification: sent as a request (with an id), it is not handled`, id as Id);
        } else if (candidate.method === '$/cancelRequest' && !isId((candidate.params as { id?: unknown } | null)?.id)) {
          log.warn('$/cancelRequest without params.id ignored');
        } else if (
          candidate.method === '$/cancelRequest' &&
          !inFlight.has(idKey((candidate.params as { id: Id }).id)) &&
          passedOn.has(String((candidate.params as { id: Id }).id))
        ) {
          // It names no request in flight, but vscode-jsonrpc would take it for one that is (1 for "1"): nothing to cancel.
        } else if (hasMethod && validId && inFlight.has(idKey(id))) {
          void reply(
            ErrorCodes.InvalidRequest,
            `request id ${JSON.stringify(id)} is already in use by a request not yet answered on this connection (ids must be unique among a client's requests in flight)`,
            id,
          );
        } else {
          let passed = message;
          if (hasMethod && validId) {
            const given = admit(id);
            if (given !== id) passed = { ...candidate, id: given } as unknown as Message;
          } else if (candidate.method === '$/cancelRequest') {
            const params = candidate.params as { id: Id };
            const given = inFlight.get(idKey(params.id));
            if (given !== undefined && given !== params.id) passed = { ...candidate, params: { ...params, id: given } } as unknown as Message;
          }
          try {
            callback(passed);
          } catch (error) {
            // Dispatch failed on this message alone: never mistake that for broken framing.
            if (hasMethod && validId) forget(id);
            log.warn(`message ${String(candidate.method ?? candidate.id)} dropped: ${errorMessage(error)}`);
          }
        }
      }),
  };

  const guardedWriter: MessageWriter = {
    onError: writer.onError,
    onClose: writer.onClose,
    end: () => writer.end(),
    dispose: () => writer.dispose(),
    write: (message: Message): Promise<void> => {
      const sent = message as unknown as Record<string, unknown>;
      let answer = message;
      if (!('method' in sent) && isId(sent.id)) {
        // An answer: to the request vscode-jsonrpc was given under this id, whose client's id it takes again.
        const id = passedOn.get(String(sent.id));
        if (id !== undefined) {
          forget(id);
          if (id !== sent.id) answer = { ...sent, id } as unknown as Message;
        }
      }
      const written = writer.write(answer);
      if (inFlight.size === 0 && drained.length > 0) {
        const waiting = drained;
        drained = [];
        // Once the last answer is written, not merely queued (or could not be: the client left).
        const release = (): void => waiting.forEach((resolve) => resolve());
        void written.then(release, release);
      }
      return written;
    },
  };
  return { reader: guardedReader, writer: guardedWriter };
}

/**
 * The id of the request whose JSON text begins with `head`, when its top-level object names both
 * its id and its method before `head` ends (vscode-jsonrpc and most clients write `jsonrpc`, `id`,
 * `method`, then `params`); null when it does not (a response's id is the daemon's own request's,
 * never to be answered), or the text is not a JSON object as far as it goes.
 */
export function leadingRequestId(head: string): Id | null {
  try {
    return walkToId(head);
  } catch {
    // A key or value JSON.parse refuses (a bad escape): not a request as far as it goes.
    return null;
  }
}

function walkToId(head: string): Id | null {
  let at = skipSpace(head, 0);
  if (head[at] !== '{') return null;
  at += 1;
  let id: Id | undefined;
  let method = false;
  for (;;) {
    at = skipSpace(head, at);
    if (head[at] !== '"') return null;
    const keyEnd = valueEnd(head, at);
    if (keyEnd < 0) return null;
    const key = JSON.parse(head.slice(at, keyEnd)) as string;
    at = skipSpace(head, keyEnd);
    if (head[at] !== ':') return null;
    at = skipSpace(head, at + 1);
    const end = valueEnd(head, at);
    if (end < 0) return null;
    if (key === 'id' || key === 'method') {
      const value: unknown = JSON.parse(head.slice(at, end));
      if (key === 'method') method = typeof value === 'string';
      else if (typeof value === 'string' || typeof value === 'number') id = value;
      else return null;
      if (method && id !== undefined) return id;
    }
    at = skipSpace(head, end);
    if (head[at] !== ',') return null;
    at += 1;
  }
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && (text[at] === ' ' || text[at] === '\t' || text[at] === '\n' || text[at] === '\r')) at += 1;
  return at;
}

/** Where the JSON value starting at `at` ends, or -1 when `text` ends first (or it is not one). */
function valueEnd(text: string, at: number): number {
  const first = text[at];
  if (first === undefined) return -1;
  if (first === '"') {
    for (let index = at + 1; index < text.length; index++) {
      if (text[index] === '\\') index += 1;
      else if (text[index] === '"') return index + 1;
    }
    return -1;
  }
  if (first === '{' || first === '[') {
    let depth = 0;
    for (let index = at; index < text.length; index++) {
      const character = text[index];
      if (character === '"') {
        const end = valueEnd(text, index);
        if (end < 0) return -1;
        index = end - 1;
      } else if (character === '{' || character === '[') depth += 1;
      else if (character === '}' || character === ']') {
        depth -= 1;
        if (depth === 0) return index + 1;
      }
    }
    return -1;
  }
  // A number, true, false or null: it ends where a delimiter follows (a value cut by the head's end is not whole).
  for (let index = at; index < text.length; index++) {
    if (',}] \t\r\n'.includes(text[index]!)) return index;
  }
  return -1;
}
