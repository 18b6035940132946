// `fathom debug …`: a debugger session (Python, debugpy) kept by the daemon between commands, one
// per workspace (of the current folder) unless --conversation names another.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Methods, type DebugEvaluateResult, type DebugStateResult } from '../../protocol/methods.js';
import { describeDebugState } from '../answer-lines.js';
import { print, request, wholeNumber, withClient } from '../client.js';
import { clientOptions, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { repositoryRoot } from '../workspace-root.js';

const options = {
  ...clientOptions,
  conversation: { type: 'string' },
  break: { type: 'string', multiple: true },
  'stop-on-entry': { type: 'boolean' },
  frames: { type: 'string' },
  frame: { type: 'string' },
} as const;

export const command: Command = {
  usage: `  debug launch PROGRAM [ARGS...] [--break FILE:LINE]... [--stop-on-entry] | debug state [--frames N]
  debug eval EXPR [--frame ID] | debug continue | debug step in|over|out | debug break FILE LINE...
  debug terminate             a debugger session (Python, debugpy) kept by the daemon between
                                      commands: one per workspace (--conversation ID for another)`,
  async run(_name, args) {
    // A program's own options go after `--` (fathom debug launch app.py -- --verbose).
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options });
    const [sub, ...rest] = positionals;
    if (values['no-daemon']) throw new UsageError('debug needs the daemon (the session lives there between commands): drop --no-daemon');
    const conversation = values.conversation ?? `cli:${repositoryRoot(process.cwd()) ?? process.cwd()}`;
    let method: string;
    let params: Record<string, unknown>;
    switch (sub) {
      case 'launch': {
        const [program, ...programArgs] = rest;
        if (!program) throw new UsageError('debug launch needs a PROGRAM');
        const breakpoints = (values.break ?? []).map((spec) => {
          const match = /^(.+):(\d+)$/.exec(spec);
          if (!match) throw new UsageError(`--break takes FILE:LINE (got ${spec})`);
          return { path: path.resolve(match[1]!), line: Number(match[2]) };
        });
        method = Methods.debugLaunch;
        params = { program: path.resolve(program), args: programArgs, cwd: process.cwd(), breakpoints, stopOnEntry: values['stop-on-entry'] === true };
        break;
      }
      case 'state': {
        const frames = wholeNumber('--frames', values.frames);
        method = Methods.debugState;
        params = frames === undefined ? {} : { frames };
        break;
      }
      case 'eval': {
        if (rest.length === 0) throw new UsageError('debug eval needs an EXPR');
        const frame = wholeNumber('--frame', values.frame);
        method = Methods.debugEvaluate;
        params = { expression: rest.join(' '), ...(frame === undefined ? {} : { frameId: frame }) };
        break;
      }
      case 'continue':
        method = Methods.debugContinue;
        params = {};
        break;
      case 'step':
        if (!['in', 'over', 'out'].includes(rest[0] ?? '')) throw new UsageError('debug step needs in, over or out');
        method = Methods.debugStep;
        params = { kind: rest[0] };
        break;
      case 'break': {
        const [file, ...lines] = rest;
        if (!file || lines.some((line) => !/^\d+$/.test(line))) throw new UsageError('debug break needs FILE and LINE numbers (none clears the file)');
        method = Methods.debugSetBreakpoints;
        params = { path: path.resolve(file), breakpoints: lines.map((line) => ({ line: Number(line) })) };
        break;
      }
      case 'terminate':
        method = Methods.debugTerminate;
        params = {};
        break;
      default:
        throw new UsageError('debug needs launch, state, eval, continue, step, break or terminate');
    }
    await withClient(values, async ({ connection }) => {
      const result = await request<DebugStateResult | DebugEvaluateResult | { session: string; terminated: boolean }>(
        connection,
        method,
        { ...params, conversation },
        false,
      );
      if (values.json) return print(result);
      if ('value' in result) return print(result.value);
      if ('terminated' in result) return print(`${result.session} terminated`);
      print(describeDebugState(result));
    });
    return 0;
  },
};
