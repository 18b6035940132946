// Debug sessions as a resource with an owner and a lifetime: at most one live session per owner (an
// editor connection, or an agent's conversation); a second launch while one is live is refused,
// naming it; every session ends after its time to live (default 5 minutes) with its debuggee and
// adapter; an owner that goes away (a closed connection) takes its session with it.
import { randomBytes } from 'node:crypto';
import { FathomError } from '../base/errors.js';
import { log } from '../base/logger.js';
import { adapterFor } from './adapters.js';
import { DebugSession, type LaunchRequest } from './debug-session.js';

export interface LiveSession {
  id: string;
  owner: string;
  program: string;
  phase: string;
  /** Seconds until it is ended by its time to live. */
  remainingSeconds: number;
}

interface Entry {
  session: DebugSession;
  owner: string;
  expires: number;
  timer: NodeJS.Timeout;
}

export class DebugSessions {
  private readonly byId = new Map<string, Entry>();
  private readonly starting = new Set<string>();

  constructor(private readonly ttlMs = 5 * 60_000) {}

  private liveOf(owner: string): Entry | undefined {
    for (const entry of this.byId.values()) if (entry.owner === owner) return entry;
    return undefined;
  }

  async launch(owner: string, request: LaunchRequest, timeoutMs?: number): Promise<DebugSession> {
    const command = await adapterFor(request.program);
    if ('missing' in command) throw new FathomError('invalidParams', `cannot debug ${request.program}: ${command.missing}`, { program: request.program });
    const live = this.liveOf(owner);
    // A session whose program has ended is not live any more: it makes room for the next one.
    if (live?.session.phase === 'ended') await this.terminate(live.session.id);
    else if (live)
      throw new FathomError(
        'conflict',
        `a debug session is live for this client: ${live.session.id} (${live.session.program}, ${live.session.phase}, ${Math.round((live.expires - Date.now()) / 1000)} s left); terminate it first`,
        { session: live.session.id },
      );
    if (this.starting.has(owner)) throw new FathomError('conflict', 'a debug session is starting for this client');
    this.starting.add(owner);
    try {
      const id = `dbg-${randomBytes(4).toString('hex')}`;
      const session = await DebugSession.launch(id, command, request, timeoutMs);
      const timer = setTimeout(() => {
        log.info(`debug session ${id}: its time to live is over; ending it`);
        void this.terminate(id);
      }, this.ttlMs);
      timer.unref();
      this.byId.set(id, { session, owner, expires: Date.now() + this.ttlMs, timer });
      return session;
    } finally {
      this.starting.delete(owner);
    }
  }

  /** The session `id` of `owner` (or, without an id, the owner's live one). */
  get(owner: string, id: string | undefined): DebugSession {
    const entry = id === undefined ? this.liveOf(owner) : this.byId.get(id);
    if (!entry)
      throw new FathomError(
        'invalidParams',
        id === undefined
          ? 'no live debug session for this client (fathom/debugLaunch starts one)'
          : `no live debug session ${id} (ended, or its time to live ran out)`,
        { session: id },
      );
    if (entry.owner !== owner) throw new FathomError('invalidParams', `debug session ${id} belongs to another client`, { session: id });
    return entry.session;
  }

  async terminate(id: string): Promise<void> {
    const entry = this.byId.get(id);
    if (!entry) return;
    this.byId.delete(id);
    clearTimeout(entry.timer);
    await entry.session.terminate();
  }

  /** Ends every session of an owner (a connection closed). */
  async release(owner: string): Promise<void> {
    await Promise.all([...this.byId.values()].filter((entry) => entry.owner === owner).map((entry) => this.terminate(entry.session.id)));
  }

  list(): LiveSession[] {
    return [...this.byId.values()].map((entry) => ({
      id: entry.session.id,
      owner: entry.owner,
      program: entry.session.program,
      phase: entry.session.phase,
      remainingSeconds: Math.max(0, Math.round((entry.expires - Date.now()) / 1000)),
    }));
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.byId.keys()].map((id) => this.terminate(id)));
  }
}
