// The running language servers, one per (server, project root), shared by every client: started
// on the first request that needs one (never at boot), reaped after an idle period, restarted after
// a crash with a growing delay between attempts (the crash is kept to be reported in the next
// answer and in status). Owns the processes' lives; language-server.ts owns each conversation.
import { log } from '../base/logger.js';
import { defaultTimings, LanguageServer, type ServerTimings } from './language-server.js';
import type { ServerSpec } from './registry.js';

export interface ServerStatus {
  server: string;
  projectRoot: string;
  state: 'starting' | 'running' | 'exited';
  pid: number | null;
  startedAt: string;
  lastUsedAt: string;
  /** Crashes since it was first started, and the last one's reason. */
  crashes: number;
  lastCrash: string | null;
}

interface Slot {
  server: LanguageServer;
  crashes: number;
  lastCrash: string | undefined;
  /** A crash not yet reported in an answer. */
  unreportedCrash: string | undefined;
  retryAt: number;
}

export interface LanguageServersOptions {
  /** Stop a server unused this long (default 10 minutes; 0: never). */
  idleMs?: number;
  timings?: ServerTimings;
  /** First restart delay after a crash (doubles per crash, at most 30 s). */
  backoffMs?: number;
}

export class LanguageServers {
  private readonly slots = new Map<string, Slot>();
  private readonly reaper: NodeJS.Timeout | undefined;
  private readonly idleMs: number;
  private readonly timings: ServerTimings;
  private readonly backoffMs: number;

  constructor(options: LanguageServersOptions = {}) {
    this.idleMs = options.idleMs ?? 10 * 60_000;
    this.timings = options.timings ?? defaultTimings;
    this.backoffMs = options.backoffMs ?? 500;
    if (this.idleMs > 0) {
      this.reaper = setInterval(() => void this.reap(), Math.min(this.idleMs, 30_000));
      this.reaper.unref();
    }
  }

  /**
   * The server for a project, started if needed and ready to talk. `crash` is a crash (of this
   * server) not yet reported to anyone. Throws when it cannot start (or is waiting out a backoff).
   * One started for a workspace not trusted is never reused once it is trusted (nor the reverse).
   */
  async get(spec: ServerSpec, projectRoot: string, command: string, trusted = true): Promise<{ server: LanguageServer; crash: string | undefined }> {
    const key = `${spec.id}\u0000${projectRoot}\u0000${trusted ? 'trusted' : 'untrusted'}`;
    let slot = this.slots.get(key);
    if (slot && slot.server.state === 'exited') {
      const wait = slot.retryAt - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(wait, 30_000)));
      slot.server = this.spawn(spec, projectRoot, command, key);
    }
    if (!slot) {
      slot = { server: this.spawn(spec, projectRoot, command, key), crashes: 0, lastCrash: undefined, unreportedCrash: undefined, retryAt: 0 };
      this.slots.set(key, slot);
    }
    await slot.server.ready;
    const crash = slot.unreportedCrash;
    slot.unreportedCrash = undefined;
    return { server: slot.server, crash };
  }

  private spawn(spec: ServerSpec, projectRoot: string, command: string, key: string): LanguageServer {
    const server = new LanguageServer(spec, projectRoot, command, this.timings);
    log.info(`${spec.name}: starting for ${projectRoot}`);
    server.onExit((reason) => {
      const slot = this.slots.get(key);
      if (!slot || slot.server !== server || reason === 'stopped') return;
      slot.crashes += 1;
      slot.lastCrash = `${spec.name} ${reason}`;
      slot.unreportedCrash = slot.lastCrash;
      slot.retryAt = Date.now() + Math.min(30_000, this.backoffMs * 2 ** (slot.crashes - 1));
      log.warn(`${spec.name} for ${projectRoot} ${reason}; restarted on next use`);
    });
    return server;
  }

  /** Stops servers unused for the idle period. */
  async reap(now = Date.now()): Promise<number> {
    let stopped = 0;
    for (const [key, slot] of this.slots) {
      if (slot.server.state !== 'exited' && now - slot.server.lastUsed >= this.idleMs) {
        this.slots.delete(key);
        await slot.server.stop();
        stopped += 1;
        log.info(`${slot.server.spec.name} for ${slot.server.projectRoot}: stopped after ${Math.round(this.idleMs / 1000)} s idle`);
      }
    }
    return stopped;
  }

  status(): ServerStatus[] {
    return [...this.slots.values()].map((slot) => ({
      server: slot.server.spec.id,
      projectRoot: slot.server.projectRoot,
      state: slot.server.state,
      pid: slot.server.pid ?? null,
      startedAt: new Date(slot.server.startedAt).toISOString(),
      lastUsedAt: new Date(slot.server.lastUsed).toISOString(),
      crashes: slot.crashes,
      lastCrash: slot.lastCrash ?? null,
    }));
  }

  /** A running server for tests and status (without starting one). */
  running(specId: string, projectRoot: string): LanguageServer | undefined {
    return (this.slots.get(`${specId}\u0000${projectRoot}\u0000trusted`) ?? this.slots.get(`${specId}\u0000${projectRoot}\u0000untrusted`))?.server;
  }

  async stopAll(): Promise<void> {
    if (this.reaper) clearInterval(this.reaper);
    const servers = [...this.slots.values()].map((slot) => slot.server);
    this.slots.clear();
    await Promise.all(servers.map((server) => server.stop()));
  }
}
