// The debugger requests of a connection: fathom/debugLaunch, debugState, debugEvaluate,
// debugContinue, debugStep, debugSetBreakpoints, debugTerminate. Reads and checks params, names the
// owner (the connection, or an agent's `conversation`), asks the daemon's DebugSessions, and shapes
// the answers (the wire's lines are 1-based, as DAP's are here).
import fs from 'node:fs';
import path from 'node:path';
import type { CancellationToken } from 'vscode-jsonrpc/node';
import { FathomError } from '../base/errors.js';
import type { DebugSession } from '../debug/debug-session.js';
import type { DebugSessions } from '../debug/debug-sessions.js';
import { Methods, type DebugEvaluateResult, type DebugStateResult } from '../protocol/methods.js';
import {
  type Params,
  optionalBoolean,
  optionalCount,
  optionalString,
  optionalStringList,
  paramsObject,
  requiredArray,
  requiredNumber,
  requiredString,
  requiredText,
} from './params.js';

export interface DebugRequestContext {
  sessions: DebugSessions;
  /** This connection's owner key. */
  connectionOwner: string;
}

function owner(context: DebugRequestContext, params: Params): string {
  const conversation = optionalString(params, 'conversation');
  return conversation === undefined ? context.connectionOwner : `conversation:${conversation}`;
}

function absolute(value: string, base: string): string {
  return path.isAbsolute(value) ? value : path.resolve(base, value);
}

function bounded(params: Params, field: string, max: number): number | undefined {
  const value = optionalCount(params, field);
  if (value !== undefined && (value < 1 || value > max))
    throw new FathomError('invalidParams', `params.${field} must be between 1 and ${max} (got ${value})`, { field });
  return value;
}

export class DebugRequests {
  constructor(private readonly context: DebugRequestContext) {}

  private async stateOf(session: DebugSession, params: Params = {}): Promise<DebugStateResult> {
    const localsOf = params.localsOf === undefined ? [] : requiredArray(params, 'localsOf');
    if (!localsOf.every((id) => Number.isInteger(id)))
      throw new FathomError('invalidParams', 'params.localsOf must be frame ids (integers)', { field: 'localsOf' });
    const frames = bounded(params, 'frames', 200);
    const maxValue = bounded(params, 'maxValue', 100_000);
    const state = await session.state({
      ...(frames === undefined ? {} : { frames }),
      localsOf: localsOf as number[],
      ...(maxValue === undefined ? {} : { maxValue }),
    });
    const live = this.context.sessions.list().find((entry) => entry.id === session.id);
    return { session: session.id, program: session.program, ...state, remainingSeconds: live?.remainingSeconds ?? 0 };
  }

  async launch(raw: unknown, token: CancellationToken): Promise<DebugStateResult> {
    void token;
    const params = paramsObject(Methods.debugLaunch, raw);
    const cwdParam = optionalString(params, 'cwd');
    const programParam = requiredString(params, 'program');
    const program = absolute(programParam, cwdParam ?? process.cwd());
    if (!fs.existsSync(program)) throw new FathomError('invalidParams', `no program at ${program}`, { field: 'program' });
    const cwd = cwdParam === undefined ? path.dirname(program) : absolute(cwdParam, process.cwd());
    if (!fs.existsSync(cwd) || !fs.statSync(cwd).isDirectory()) throw new FathomError('invalidParams', `params.cwd is not a folder: ${cwd}`, { field: 'cwd' });
    const args = optionalStringList(params, 'args') ?? [];
    const env = params.env === undefined ? {} : params.env;
    if (typeof env !== 'object' || env === null || Array.isArray(env) || !Object.values(env).every((value) => typeof value === 'string'))
      throw new FathomError('invalidParams', 'params.env must map names to strings', { field: 'env' });
    const breakpoints = (params.breakpoints === undefined ? [] : requiredArray(params, 'breakpoints')).map((entry, at) => {
      const value = entry as Params;
      if (typeof value !== 'object' || value === null)
        throw new FathomError('invalidParams', `params.breakpoints[${at}] must be an object`, { field: `breakpoints[${at}]` });
      const line = requiredNumber(value, 'line');
      if (!Number.isInteger(line) || line < 1)
        throw new FathomError('invalidParams', `params.breakpoints[${at}].line must be an integer ≥ 1`, { field: `breakpoints[${at}].line` });
      const condition = optionalString(value, 'condition');
      return { path: absolute(requiredString(value, 'path'), cwd), line, ...(condition ? { condition } : {}) };
    });
    const timeoutMs = bounded(params, 'timeoutMs', 600_000);
    const session = await this.context.sessions.launch(
      owner(this.context, params),
      { program, args, cwd, env: env as Record<string, string>, breakpoints, stopOnEntry: optionalBoolean(params, 'stopOnEntry') ?? false },
      timeoutMs,
    );
    return this.stateOf(session);
  }

  async state(raw: unknown): Promise<DebugStateResult> {
    const params = paramsObject(Methods.debugState, raw, { optional: true });
    return this.stateOf(this.context.sessions.get(owner(this.context, params), optionalString(params, 'session')), params);
  }

  async evaluate(raw: unknown): Promise<DebugEvaluateResult> {
    const params = paramsObject(Methods.debugEvaluate, raw);
    const session = this.context.sessions.get(owner(this.context, params), optionalString(params, 'session'));
    const frameId = params.frameId === undefined ? undefined : requiredNumber(params, 'frameId');
    return { session: session.id, ...(await session.evaluate(requiredText(params, 'expression'), frameId)) };
  }

  async move(raw: unknown, method: string): Promise<DebugStateResult> {
    const params = paramsObject(method, raw, { optional: true });
    const session = this.context.sessions.get(owner(this.context, params), optionalString(params, 'session'));
    let kind: 'continue' | 'in' | 'over' | 'out' = 'continue';
    if (method === Methods.debugStep) {
      const value = requiredString(params, 'kind');
      if (value !== 'in' && value !== 'over' && value !== 'out')
        throw new FathomError('invalidParams', `params.kind must be in, over or out (got ${value})`, { field: 'kind' });
      kind = value;
    }
    await session.move(kind, bounded(params, 'timeoutMs', 600_000) ?? 30_000);
    return this.stateOf(session);
  }

  async setBreakpoints(raw: unknown): Promise<DebugStateResult> {
    const params = paramsObject(Methods.debugSetBreakpoints, raw);
    const session = this.context.sessions.get(owner(this.context, params), optionalString(params, 'session'));
    const file = requiredString(params, 'path');
    const list = requiredArray(params, 'breakpoints').map((entry, at) => {
      const value = entry as Params;
      const line = requiredNumber(value, 'line');
      if (!Number.isInteger(line) || line < 1)
        throw new FathomError('invalidParams', `params.breakpoints[${at}].line must be an integer ≥ 1`, { field: `breakpoints[${at}].line` });
      const condition = optionalString(value, 'condition');
      return { path: absolute(file, path.dirname(session.program)), line, ...(condition ? { condition } : {}) };
    });
    await session.setBreakpoints(absolute(file, path.dirname(session.program)), list);
    return this.stateOf(session);
  }

  async terminate(raw: unknown): Promise<{ session: string; terminated: true }> {
    const params = paramsObject(Methods.debugTerminate, raw, { optional: true });
    const session = this.context.sessions.get(owner(this.context, params), optionalString(params, 'session'));
    await this.context.sessions.terminate(session.id);
    return { session: session.id, terminated: true };
  }
}
