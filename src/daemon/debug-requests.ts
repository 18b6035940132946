// The debugger requests of a connection: fathom/debugLaunch, debugState, debugEvaluate,
// debugContinue, debugStep, debugSetBreakpoints, debugTerminate. Given the params as their schemas
// parsed them (protocol/params.ts), resolves paths, names the owner (the connection, or an agent's
// `conversation`), asks the daemon's DebugSessions, and shapes the answers (the wire's lines are
// 1-based, as DAP's are here).
import fs from 'node:fs';
import path from 'node:path';
import type { CancellationToken } from 'vscode-jsonrpc/node';
import { FathomError } from '../base/errors.js';
import type { DebugSession } from '../debug/debug-session.js';
import type { DebugSessions } from '../debug/debug-sessions.js';
import type { DebugEvaluateResult, DebugStateResult } from '../protocol/methods.js';
import type { ParamsOf } from '../protocol/params.js';

export interface DebugRequestContext {
  sessions: DebugSessions;
  /** This connection's owner key. */
  connectionOwner: string;
}

function owner(context: DebugRequestContext, params: { conversation?: string | undefined }): string {
  return params.conversation === undefined ? context.connectionOwner : `conversation:${params.conversation}`;
}

function absolute(value: string, base: string): string {
  return path.isAbsolute(value) ? value : path.resolve(base, value);
}

export class DebugRequests {
  constructor(private readonly context: DebugRequestContext) {}

  private async stateOf(session: DebugSession, params: ParamsOf<'fathom/debugState'> = {}): Promise<DebugStateResult> {
    const { frames, maxValue } = params;
    const state = await session.state({
      ...(frames === undefined ? {} : { frames }),
      localsOf: params.localsOf ?? [],
      ...(maxValue === undefined ? {} : { maxValue }),
    });
    const live = this.context.sessions.list().find((entry) => entry.id === session.id);
    return { session: session.id, program: session.program, ...state, remainingSeconds: live?.remainingSeconds ?? 0 };
  }

  async launch(params: ParamsOf<'fathom/debugLaunch'>, token: CancellationToken): Promise<DebugStateResult> {
    void token;
    const cwdParam = params.cwd;
    const program = absolute(params.program, cwdParam ?? process.cwd());
    if (!fs.existsSync(program)) throw new FathomError('invalidParams', `no program at ${program}`, { field: 'program' });
    const cwd = cwdParam === undefined ? path.dirname(program) : absolute(cwdParam, process.cwd());
    if (!fs.existsSync(cwd) || !fs.statSync(cwd).isDirectory()) throw new FathomError('invalidParams', `params.cwd is not a folder: ${cwd}`, { field: 'cwd' });
    const breakpoints = (params.breakpoints ?? []).map(({ path: file, line, condition }) => ({
      path: absolute(file, cwd),
      line,
      ...(condition ? { condition } : {}),
    }));
    const session = await this.context.sessions.launch(
      owner(this.context, params),
      { program, args: params.args ?? [], cwd, env: params.env ?? {}, breakpoints, stopOnEntry: params.stopOnEntry ?? false },
      params.timeoutMs,
    );
    return this.stateOf(session);
  }

  async state(params: ParamsOf<'fathom/debugState'>): Promise<DebugStateResult> {
    return this.stateOf(this.context.sessions.get(owner(this.context, params), params.session), params);
  }

  async evaluate(params: ParamsOf<'fathom/debugEvaluate'>): Promise<DebugEvaluateResult> {
    const session = this.context.sessions.get(owner(this.context, params), params.session);
    return { session: session.id, ...(await session.evaluate(params.expression, params.frameId)) };
  }

  /** fathom/debugContinue, and fathom/debugStep (which names its `kind`). */
  async move(params: ParamsOf<'fathom/debugContinue'> | ParamsOf<'fathom/debugStep'>): Promise<DebugStateResult> {
    const session = this.context.sessions.get(owner(this.context, params), params.session);
    await session.move('kind' in params ? params.kind : 'continue', params.timeoutMs ?? 30_000);
    return this.stateOf(session);
  }

  async setBreakpoints(params: ParamsOf<'fathom/debugSetBreakpoints'>): Promise<DebugStateResult> {
    const session = this.context.sessions.get(owner(this.context, params), params.session);
    const file = absolute(params.path, path.dirname(session.program));
    const list = params.breakpoints.map(({ line, condition }) => ({ path: file, line, ...(condition ? { condition } : {}) }));
    await session.setBreakpoints(file, list);
    return this.stateOf(session);
  }

  async terminate(params: ParamsOf<'fathom/debugTerminate'>): Promise<{ session: string; terminated: true }> {
    const session = this.context.sessions.get(owner(this.context, params), params.session);
    await this.context.sessions.terminate(session.id);
    return { session: session.id, terminated: true };
  }
}
