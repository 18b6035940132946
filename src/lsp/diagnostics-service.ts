// Edits through Fathom, answered with the diagnostics they introduced. For an edit: find the file's
// server (registry: marker and binary, else `no-server` with the reason), start it if needed,
// show it the file and the files that may depend on it (importers, found by the caller) as they are
// now and record their diagnostics as the ledger's baseline when the ledger has none, write the
// change atomically, show the server the new text, and report what the ledger has not seen: in the
// file, and in its dependents (marked with their path). `newDiagnostics` does the same without an
// edit (for changes made elsewhere). The status says when the answer is not a clean "these are
// new": `timeout` (no diagnostics in time: never reported as clean), `server-crashed`, `no-server`.
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { writeFileAtomically } from '../base/atomic-file.js';
import { differsFromDisk, diskText } from '../base/editor-text.js';
import { FathomError } from '../base/errors.js';
import { assertWritableInside } from '../base/paths.js';
import type { DiagnosticsAnswer, DiagnosticsStatus, LanguageServer, LspDiagnostic } from './language-server.js';
import type { LanguageServers } from './language-servers.js';
import type { DiagnosticLedger } from './ledger.js';
import type { ServerRegistry, ServerSpec } from './registry.js';
import { applyTextEdits, type TextEdit } from './text-edits.js';

export type EditStatus = DiagnosticsStatus | 'no-server';

export interface FileDiagnostics {
  /** Absolute path. */
  path: string;
  diagnostics: LspDiagnostic[];
}

export interface EditAnswer {
  applied: boolean;
  /** Fathom's version of the file after the edit (pass it as expectedVersion next time). */
  version: number;
  status: EditStatus;
  /** Why the status is not `ok`. */
  reason?: string;
  server?: string;
  /** A crash of the server since the last answer (it was restarted). */
  crash?: string;
  /** What the workspace, not trusted, was kept from running (registry.ts `declinedNotice`). */
  notice?: string;
  newDiagnostics: FileDiagnostics[];
}

export interface EditRequest {
  workspaceRoot: string;
  absolutePath: string;
  /** Fathom's language id of the file (undefined: no grammar, so no server). */
  language: string | undefined;
  newText?: string;
  edits?: TextEdit[];
  /** Refuse the edit unless Fathom's version of the file is this one. */
  expectedVersion?: number;
  ledgerKey: string;
  /** Whether the workspace may run code it ships (its own language server, TypeScript, build scripts); default no. */
  trusted?: boolean;
  /** Report hints too (severity 4: unused names and the like); default: errors, warnings and information. */
  includeHints?: boolean;
  /** Fathom's language id of another file (an importer), by its name. */
  languageOf?: (absolutePath: string) => string | undefined;
  /** Files that may depend on this one (absolute), to watch for diagnostics the edit causes there. */
  dependents?: (spec: ServerSpec) => Promise<string[]>;
  /** The text of an editor buffer holding the file open, if one does (checked just before writing). */
  editorText?: () => string | undefined;
}

const worst: Record<EditStatus, number> = { ok: 0, timeout: 2, 'server-crashed': 3, 'no-server': 1 };

/** How long to wait for a dependent's diagnostics to be republished after an edit. */
const dependentWaitMs = 2_000;

function readText(absolutePath: string): string {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(absolutePath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new FathomError('invalidParams', `${absolutePath} does not exist (fathom/writeFile creates files)`, { path: absolutePath });
    throw new FathomError('io', `${absolutePath}: ${(error as Error).message}`, { path: absolutePath });
  }
  if (!isUtf8(bytes)) throw new FathomError('invalidParams', `${absolutePath} is not UTF-8 text; not editing it`, { path: absolutePath });
  return bytes.toString('utf8');
}

/** The texts Fathom last wrote over, per file, at most this many (see `unsavedIn`). */
const overwrittenKept = 16;

function digest(text: string): string {
  return createHash('sha256')
    .update(text.startsWith('\ufeff') ? text.slice(1) : text)
    .digest('base64');
}

export class DiagnosticsService {
  private readonly versions = new Map<string, number>();
  /** Digests of the texts Fathom's writes replaced, per file: an editor that has not reloaded still shows one. */
  private readonly overwritten = new Map<string, string[]>();
  /** Edits of one file run one after another (each answer is about its own write). */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly registry: ServerRegistry,
    private readonly servers: LanguageServers,
    private readonly ledger: DiagnosticLedger,
  ) {}

  versionOf(absolutePath: string): number {
    return this.versions.get(absolutePath) ?? 0;
  }

  private serialized<T>(file: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(file) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    const settled = next.catch(() => undefined);
    this.queues.set(file, settled);
    void settled.then(() => {
      if (this.queues.get(file) === settled) this.queues.delete(file);
    });
    return next;
  }

  /** Applies an edit (or writes new content) and answers the diagnostics it introduced. */
  edit(request: EditRequest, create = false): Promise<EditAnswer> {
    return this.serialized(request.absolutePath, () => this.editNow(request, create));
  }

  private async editNow(request: EditRequest, create: boolean): Promise<EditAnswer> {
    const exists = fs.existsSync(request.absolutePath);
    if (!exists && !create) readText(request.absolutePath); // throws the clear error
    const before = exists ? readText(request.absolutePath) : '';
    if ((request.newText === undefined) === (request.edits === undefined))
      throw new FathomError('invalidParams', 'give either edits or newText', { field: 'edits' });
    const after = request.newText ?? applyTextEdits(before, request.edits!);
    const current = this.versionOf(request.absolutePath);
    if (request.expectedVersion !== undefined && request.expectedVersion !== current) {
      throw new FathomError(
        'invalidParams',
        `stale edit: expectedVersion ${request.expectedVersion}, but Fathom's version of ${request.absolutePath} is ${current}; nothing was written`,
        { field: 'expectedVersion', version: current },
      );
    }
    const write = (): number => {
      // Checked here, in this file's turn, just before the write: typing since the request came counts.
      if (this.unsavedIn(request)) {
        throw new FathomError(
          'conflict',
          `${request.absolutePath} has unsaved changes in an editor: save or discard them, then edit it (Fathom never writes over them); nothing was written`,
          { path: request.absolutePath, reason: 'unsaved' },
        );
      }
      const overwritten = [digest(diskText(request.absolutePath)), ...(this.overwritten.get(request.absolutePath) ?? [])].slice(0, overwrittenKept);
      this.overwritten.set(request.absolutePath, overwritten);
      // The folder is checked again at the write: one swapped for a symlink since the request was read stays out.
      assertWritableInside(request.workspaceRoot, request.absolutePath);
      writeFileAtomically(request.absolutePath, after);
      const version = current + 1;
      this.versions.set(request.absolutePath, version);
      return version;
    };
    return this.withServer(request, write);
  }

  /**
   * Whether an editor holds the file with changes the disk lacks: its text differs from the disk's
   * (a missing file reads as empty; a byte-order mark is not a change) and from every text Fathom
   * wrote over lately (an editor that has not reloaded the file since shows one: clean, only stale).
   */
  private unsavedIn(request: Pick<EditRequest, 'absolutePath' | 'editorText'>): boolean {
    const buffer = request.editorText?.();
    if (buffer === undefined) return false;
    return differsFromDisk(buffer, request.absolutePath) && !(this.overwritten.get(request.absolutePath) ?? []).includes(digest(buffer));
  }

  /** The diagnostics of a file (as it is on disk) that the ledger has not reported yet. */
  check(request: Omit<EditRequest, 'newText' | 'edits' | 'expectedVersion'>): Promise<EditAnswer> {
    return this.serialized(request.absolutePath, async () => {
      readText(request.absolutePath);
      return this.withServer(request, undefined);
    });
  }

  private async withServer(request: Omit<EditRequest, 'newText' | 'edits' | 'expectedVersion'>, write: (() => number) | undefined): Promise<EditAnswer> {
    const availability = this.registry.availability(request.absolutePath, request.language, request.workspaceRoot, { trusted: request.trusted === true });
    if (!availability.available) {
      const version = write ? write() : this.versionOf(request.absolutePath);
      return { applied: write !== undefined, version, status: 'no-server', reason: availability.reason, newDiagnostics: [] };
    }
    let server: LanguageServer;
    let crash: string | undefined;
    try {
      ({ server, crash } = await this.servers.get(availability.spec, availability.projectRoot, availability.command, availability.trusted));
    } catch (error) {
      const version = write ? write() : this.versionOf(request.absolutePath);
      return {
        applied: write !== undefined,
        version,
        status: 'server-crashed',
        reason: `${availability.spec.name} did not start: ${(error as Error).message}`,
        server: availability.spec.id,
        newDiagnostics: [],
      };
    }
    const key = request.ledgerKey;
    const kept = (diagnostics: LspDiagnostic[]): LspDiagnostic[] =>
      request.includeHints ? diagnostics : diagnostics.filter((diagnostic) => (diagnostic.severity ?? 1) <= 3);
    // The LSP language id of each file shown to the server (an importer may be TSX where the edited file is TypeScript).
    const languageIdOf = (file: string): string => {
      const language = file === request.absolutePath ? request.language : request.languageOf?.(file);
      return (language !== undefined ? availability.spec.languages[language] : undefined) ?? availability.languageId;
    };
    const dependents = ((await request.dependents?.(availability.spec)) ?? []).filter((file) => file !== request.absolutePath).slice(0, 16);
    let status: EditStatus = 'ok';
    let reason: string | undefined;
    const note = (answer: DiagnosticsAnswer, file: string): void => {
      if (worst[answer.status] > worst[status]) {
        status = answer.status;
        reason =
          answer.status === 'timeout'
            ? `${availability.spec.name} gave no diagnostics for ${file} in time`
            : `${availability.spec.name} stopped while Fathom waited for ${file}`;
      }
    };
    // Baselines: what was there before the edit is not new. A dependent that cannot be read is left out.
    const shown: string[] = [];
    for (const file of [request.absolutePath, ...dependents]) {
      const uri = pathToFileURL(file).href;
      let text: string;
      try {
        text = readText(file);
      } catch {
        continue;
      }
      if (file !== request.absolutePath) shown.push(file);
      const version = server.sync(uri, languageIdOf(file), text);
      if (!this.ledger.knows(key, uri) && (write || file !== request.absolutePath)) {
        const answer = await server.diagnostics(uri, version);
        note(answer, file);
        this.ledger.remember(key, uri, kept(answer.diagnostics));
      }
    }
    const version = write ? write() : this.versionOf(request.absolutePath);
    const uri = pathToFileURL(request.absolutePath).href;
    const mark = server.mark;
    const synced = server.sync(uri, languageIdOf(request.absolutePath), readText(request.absolutePath));
    const main = await server.diagnostics(uri, synced);
    note(main, request.absolutePath);
    const newDiagnostics: FileDiagnostics[] = [];
    if (main.status === 'ok') newDiagnostics.push({ path: request.absolutePath, diagnostics: this.ledger.report(key, uri, kept(main.diagnostics)) });
    for (const file of shown) {
      const dependentUri = pathToFileURL(file).href;
      const answer = await server.current(dependentUri, mark, dependentWaitMs);
      note(answer, file);
      if (answer.status === 'ok') newDiagnostics.push({ path: file, diagnostics: this.ledger.report(key, dependentUri, kept(answer.diagnostics)) });
    }
    return {
      applied: write !== undefined,
      version,
      status,
      ...(reason ? { reason } : {}),
      server: availability.spec.id,
      ...(crash ? { crash } : {}),
      ...(availability.notice ? { notice: availability.notice } : {}),
      newDiagnostics: newDiagnostics.filter((entry) => entry.diagnostics.length > 0),
    };
  }
}
