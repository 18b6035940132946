// One debug session: an adapter process spoken to over DAP (dap-connection.ts), the debuggee it
// launched, and what is true now: running, stopped (where, why) or ended (exit code). Launch
// follows DAP's order: initialize, launch (answered only after configuration), the adapter's
// `initialized` event, breakpoints, configurationDone, then the first stop or the end. Questions
// (state, evaluate) are asked of a stopped debuggee; moves (continue, step) wait for the next stop
// or the end. Terminating disconnects with terminateDebuggee and then kills what is left, so no
// process outlives a session.
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { FathomError } from '../base/errors.js';
import { log } from '../base/logger.js';
import type { AdapterCommand } from './adapters.js';
import { DapClosed, DapConnection, type DapEvent, DapFailed, DapTimedOut } from './dap-connection.js';

export interface Breakpoint {
  /** Absolute path. */
  path: string;
  /** 1-based. */
  line: number;
  condition?: string;
}

export interface LaunchRequest {
  program: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  breakpoints: Breakpoint[];
  stopOnEntry: boolean;
}

export type SessionPhase = 'starting' | 'running' | 'stopped' | 'ended';

export interface StopInfo {
  reason: string;
  threadId: number;
  description?: string;
}

export interface Variable {
  name: string;
  value: string;
  type?: string;
  /** The value was cut at the cap. */
  truncated?: boolean;
  /** It has children (an object, a list). */
  expandable?: boolean;
}

export interface Frame {
  id: number;
  name: string;
  /** Absolute path, when the frame has a source. */
  path?: string;
  /** 1-based. */
  line: number;
  column: number;
  locals?: Variable[];
}

export interface SessionState {
  phase: SessionPhase;
  stop?: StopInfo;
  frames: Frame[];
  exitCode?: number;
  /** The debuggee's output so far (the last 64 lines). */
  output: string[];
  breakpoints: Array<{ path: string; line: number; verified: boolean; message?: string }>;
}

const outputLines = 64;
/** How long an adapter may take to start and take the launch, whatever the launch's own wait for a stop. */
const adapterStartMs = 30_000;

/** A DAP body's field as text: a string as it is, anything else (an adapter's odd value) as JSON. */
function dapText(value: unknown, absent = ''): string {
  if (value === undefined || value === null) return absent;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export class DebugSession {
  phase: SessionPhase = 'starting';
  stop: StopInfo | undefined;
  exitCode: number | undefined;
  debuggeePid: number | undefined;
  private readonly output: string[] = [];
  /** The last line of output, until its newline comes. */
  private partial = '';
  private readonly breakpointState = new Map<string, Array<{ path: string; line: number; verified: boolean; message?: string }>>();
  private readonly waiters = new Set<() => void>();
  private readonly connection: DapConnection;

  private constructor(
    readonly id: string,
    readonly program: string,
    private readonly adapter: ChildProcess,
    streams: { input: Readable; output: Writable },
    private readonly evaluateContext: 'repl' | 'watch',
  ) {
    this.connection = new DapConnection(streams.input, streams.output, (line) => log.debug(`debug ${id}: ${line}`));
    this.connection.onEvent((event) => this.event(event));
    this.connection.onClose(() => this.ended());
    adapter.stderr?.on('data', (chunk: Buffer) => log.debug(`debug adapter ${id}: ${chunk.toString().trim()}`));
    // An adapter reached over TCP (delve) runs the debuggee with its own stdout: that is the program's output.
    if (streams.input !== adapter.stdout) adapter.stdout?.on('data', (chunk: Buffer) => this.addOutput(chunk.toString()));
    adapter.on('exit', () => this.connection.close());
  }

  /** Starts the adapter; answers the streams DAP runs on (its stdio, or the TCP port it prints). */
  private static async start(command: AdapterCommand, cwd: string, timeoutMs: number): Promise<{ adapter: ChildProcess; input: Readable; output: Writable }> {
    const adapter = spawn(command.command, command.args, { stdio: ['pipe', 'pipe', 'pipe'], cwd: command.cwd ?? cwd });
    await new Promise<void>((resolve, reject) => {
      adapter.once('spawn', resolve);
      adapter.once('error', (error) =>
        reject(new FathomError('io', `the debug adapter (${command.command} ${command.args.join(' ')}) did not start: ${error.message}`)),
      );
    });
    if (command.transport === 'stdio') return { adapter, input: adapter.stdout!, output: adapter.stdin! };
    const address = await new Promise<{ host: string; port: number }>((resolve, reject) => {
      let text = '';
      const timer = setTimeout(() => reject(new FathomError('io', `the debug adapter printed no address within ${timeoutMs} ms`)), timeoutMs);
      const onData = (chunk: Buffer): void => {
        text += chunk.toString();
        const match = /listening at:?\s*\[?([\d.:a-f]+?)\]?:(\d+)/i.exec(text);
        if (!match) return;
        clearTimeout(timer);
        adapter.stdout!.off('data', onData);
        resolve({ host: match[1]!, port: Number(match[2]) });
      };
      adapter.stdout!.on('data', onData);
      adapter.once('exit', (code) => {
        clearTimeout(timer);
        reject(new FathomError('io', `the debug adapter exited (code ${code}) before it listened: ${text.trim()}`));
      });
    });
    adapter.stdout!.resume();
    const socket = net.connect(address.port, address.host);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', (error) => reject(new FathomError('io', `could not reach the debug adapter at ${address.host}:${address.port}: ${error.message}`)));
    });
    return { adapter, input: socket, output: socket };
  }

  /**
   * Starts the adapter and the program; answers once the debuggee first stops or ends (or
   * `timeoutMs` passes, still running). The adapter's own start (its address, initialize, the
   * initialized event, the launch's answer) may take up to `adapterStartMs` even when `timeoutMs`
   * is shorter: a loaded machine's debugpy takes seconds to start, and a short wait for a stop must
   * not turn that into a failed launch.
   */
  static async launch(id: string, command: AdapterCommand, request: LaunchRequest, timeoutMs = 30_000): Promise<DebugSession> {
    const startMs = Math.max(timeoutMs, adapterStartMs);
    const started = await DebugSession.start(command, request.cwd, startMs);
    const session = new DebugSession(id, request.program, started.adapter, started, command.evaluateContext);
    try {
      await session.connection.request('initialize', {
        clientID: 'fathom',
        clientName: 'Fathom',
        adapterID: command.adapter,
        pathFormat: 'path',
        linesStartAt1: true,
        columnsStartAt1: true,
        supportsVariableType: true,
        supportsRunInTerminalRequest: false,
        locale: 'en',
      });
      const initialized = session.nextEvent('initialized', startMs);
      const launched = session.connection.request('launch', command.launchArguments(request), startMs);
      launched.catch(() => undefined); // observed below; a failure before then must not go unhandled
      await initialized;
      const bySource = new Map<string, Breakpoint[]>();
      for (const breakpoint of request.breakpoints) bySource.set(breakpoint.path, [...(bySource.get(breakpoint.path) ?? []), breakpoint]);
      for (const [path, list] of bySource) await session.setBreakpoints(path, list);
      await session.connection.request('configurationDone', {});
      await launched;
      session.phase = session.phase === 'starting' ? 'running' : session.phase;
      await session.untilStoppedOrEnded(timeoutMs);
      return session;
    } catch (error) {
      await session.terminate();
      throw asFathomError(error, 'launch');
    }
  }

  private nextEvent(name: string, timeoutMs: number): Promise<DapEvent> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        subscription.dispose();
        reject(new DapTimedOut(`waiting for the ${name} event`, timeoutMs));
      }, timeoutMs);
      const subscription = this.connection.onEvent((event) => {
        if (event.event !== name) return;
        clearTimeout(timer);
        subscription.dispose();
        resolve(event);
      });
      this.connection.onClose(() => {
        clearTimeout(timer);
        reject(new FathomError('io', `the debug adapter ended before the ${name} event`));
      });
    });
  }

  private event(event: DapEvent): void {
    const body = event.body ?? {};
    switch (event.event) {
      case 'stopped':
        this.phase = 'stopped';
        this.stop = {
          reason: dapText(body.reason, 'unknown'),
          threadId: Number(body.threadId ?? 0),
          ...(body.description ? { description: dapText(body.description) } : {}),
        };
        break;
      case 'continued':
        this.phase = 'running';
        this.stop = undefined;
        break;
      case 'exited':
        this.exitCode = Number(body.exitCode ?? 0);
        this.ended();
        return;
      case 'terminated':
        this.ended();
        break;
      case 'process':
        if (typeof body.systemProcessId === 'number') this.debuggeePid = body.systemProcessId;
        break;
      case 'output': {
        if (body.category === 'telemetry') break;
        // Output comes in pieces (print writes its parts apart): lines are joined across events.
        this.addOutput(dapText(body.output));
        break;
      }
      default:
        return;
    }
    if (event.event === 'stopped' || event.event === 'terminated') for (const waiter of this.waiters) waiter();
  }

  /** Output lines, joined across pieces (print writes its parts apart), carriage returns dropped. */
  private addOutput(text: string): void {
    const lines = (this.partial + text.replace(/\r/g, '')).split('\n');
    this.partial = lines.pop() ?? '';
    this.output.push(...lines);
    if (this.output.length > outputLines) this.output.splice(0, this.output.length - outputLines);
  }

  private ended(): void {
    if (this.phase === 'ended') return;
    this.phase = 'ended';
    this.stop = undefined;
    for (const waiter of this.waiters) waiter();
  }

  /** Resolves when the debuggee is stopped or ended, or after `timeoutMs` (still running). */
  untilStoppedOrEnded(timeoutMs: number): Promise<void> {
    if (this.phase === 'stopped' || this.phase === 'ended') return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.waiters.add(done);
    });
  }

  async setBreakpoints(path: string, breakpoints: Breakpoint[]): Promise<void> {
    const body = await this.connection.request('setBreakpoints', {
      source: { path },
      breakpoints: breakpoints.map((entry) => ({ line: entry.line, ...(entry.condition ? { condition: entry.condition } : {}) })),
      lines: breakpoints.map((entry) => entry.line),
    });
    const answered = (body.breakpoints as Array<{ verified?: boolean; line?: number; message?: string }> | undefined) ?? [];
    this.breakpointState.set(
      path,
      breakpoints.map((entry, at) => ({
        path,
        line: answered[at]?.line ?? entry.line,
        verified: answered[at]?.verified === true,
        ...(answered[at]?.message ? { message: answered[at]!.message! } : {}),
      })),
    );
  }

  private requireStopped(what: string): StopInfo {
    if (this.phase !== 'stopped' || !this.stop)
      throw new FathomError(
        'invalidParams',
        `${what}: the debuggee is ${this.phase === 'ended' ? `finished${this.exitCode === undefined ? '' : ` (exit code ${this.exitCode})`}` : this.phase}, not stopped`,
      );
    return this.stop;
  }

  /** Where it is: the stack of the stopped thread, with the locals of the top frame and of `frameIds`. */
  async state(options: { frames?: number; localsOf?: number[]; maxValue?: number; maxLocals?: number } = {}): Promise<SessionState> {
    try {
      return await this.stateNow(options);
    } catch (error) {
      // The adapter went away while we asked (it crashed, or was killed): the session has ended.
      if (error instanceof DapClosed || this.connection.isClosed) {
        this.ended();
        return this.stateNow(options);
      }
      throw asFathomError(error, 'state');
    }
  }

  private async stateNow(options: { frames?: number; localsOf?: number[]; maxValue?: number; maxLocals?: number }): Promise<SessionState> {
    const base = {
      phase: this.phase,
      ...(this.exitCode === undefined ? {} : { exitCode: this.exitCode }),
      output: [...this.output, ...(this.partial ? [this.partial] : [])],
      breakpoints: [...this.breakpointState.values()].flat(),
    };
    if (this.phase !== 'stopped' || !this.stop) return { ...base, frames: [] };
    const stop = this.stop;
    const trace = await this.connection.request('stackTrace', { threadId: stop.threadId, startFrame: 0, levels: options.frames ?? 20 });
    const frames: Frame[] = ((trace.stackFrames as Array<{ id: number; name: string; line: number; column: number; source?: { path?: string } }>) ?? []).map(
      (frame) => ({
        id: frame.id,
        name: frame.name,
        ...(frame.source?.path ? { path: frame.source.path } : {}),
        line: frame.line,
        column: frame.column,
      }),
    );
    const wanted = new Set([...(frames[0] ? [frames[0].id] : []), ...(options.localsOf ?? [])]);
    for (const frame of frames) if (wanted.has(frame.id)) frame.locals = await this.locals(frame.id, options.maxValue ?? 200, options.maxLocals ?? 100);
    return { ...base, stop, frames };
  }

  private async locals(frameId: number, maxValue: number, maxLocals: number): Promise<Variable[]> {
    const scopes =
      ((await this.connection.request('scopes', { frameId })).scopes as Array<{
        name: string;
        variablesReference: number;
        expensive?: boolean;
        presentationHint?: string;
      }>) ?? [];
    const scope = scopes.find((entry) => entry.presentationHint === 'locals' || /^locals$/i.test(entry.name)) ?? scopes.find((entry) => !entry.expensive);
    if (!scope) return [];
    const variables =
      ((await this.connection.request('variables', { variablesReference: scope.variablesReference })).variables as Array<{
        name: string;
        value: string;
        type?: string;
        variablesReference?: number;
      }>) ?? [];
    return variables
      .filter((variable) => !/^(special|function|class) variables$/.test(variable.name))
      .slice(0, maxLocals)
      .map((variable) => ({
        name: variable.name,
        value: variable.value.length > maxValue ? `${variable.value.slice(0, maxValue)}…` : variable.value,
        ...(variable.type ? { type: variable.type } : {}),
        ...(variable.value.length > maxValue ? { truncated: true } : {}),
        ...(variable.variablesReference ? { expandable: true } : {}),
      }));
  }

  async evaluate(expression: string, frameId: number | undefined, maxValue = 2000): Promise<{ value: string; type?: string; truncated?: boolean }> {
    this.requireStopped('evaluate');
    const frame = frameId ?? (await this.state({ frames: 1, maxLocals: 0 })).frames[0]?.id;
    try {
      const body = await this.connection.request('evaluate', { expression, ...(frame === undefined ? {} : { frameId: frame }), context: this.evaluateContext });
      const value = dapText(body.result);
      return {
        value: value.length > maxValue ? `${value.slice(0, maxValue)}…` : value,
        ...(body.type ? { type: dapText(body.type) } : {}),
        ...(value.length > maxValue ? { truncated: true } : {}),
      };
    } catch (error) {
      if (error instanceof DapFailed) throw new FathomError('invalidParams', `evaluating ${expression}: ${error.message.replace(/^evaluate: /, '')}`);
      throw asFathomError(error, 'evaluate');
    }
  }

  /** Continue, or step in / over / out; answers once it stops again or ends (or `timeoutMs`: still running). */
  async move(kind: 'continue' | 'in' | 'over' | 'out', timeoutMs = 30_000): Promise<void> {
    const stop = this.requireStopped(kind === 'continue' ? 'continue' : `step ${kind}`);
    const command = kind === 'continue' ? 'continue' : kind === 'in' ? 'stepIn' : kind === 'over' ? 'next' : 'stepOut';
    this.phase = 'running';
    this.stop = undefined;
    try {
      await this.connection.request(command, { threadId: stop.threadId });
    } catch (error) {
      throw asFathomError(error, command);
    }
    await this.untilStoppedOrEnded(timeoutMs);
  }

  /** Ends the debuggee and the adapter (politely, then by force); safe to call twice. */
  async terminate(): Promise<void> {
    if (!this.connection.isClosed) {
      await this.connection.request('disconnect', { terminateDebuggee: true }, 3000).catch(() => undefined);
    }
    this.connection.close();
    for (const pid of [this.debuggeePid]) {
      if (pid === undefined) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    if (this.adapter.exitCode === null && this.adapter.signalCode === null) {
      this.adapter.kill('SIGTERM');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.adapter.kill('SIGKILL');
          resolve();
        }, 2000);
        this.adapter.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    this.ended();
  }
}

function asFathomError(error: unknown, what: string): Error {
  if (error instanceof FathomError) return error;
  if (error instanceof DapClosed) return new FathomError('io', `${what}: the debug adapter ended (it crashed or was killed); the session is over`);
  if (error instanceof DapFailed)
    return new FathomError('invalidParams', `the debug adapter refused ${error.command}: ${error.message.replace(`${error.command}: `, '')}`);
  if (error instanceof DapTimedOut) return new FathomError('io', `${what}: ${error.message}`);
  return new FathomError('io', `${what}: the debug adapter failed: ${(error as Error).message}`);
}
