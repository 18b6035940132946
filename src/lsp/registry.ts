// The language servers Fathom knows: which languages each serves, the files that mark a project
// root for it, its binary and arguments, and what it needs at initialize. A server is available
// for a file only when a root marker lies between the file's folder and the workspace root AND its
// binary resolves (in a trusted workspace the project's node_modules/.bin first; then Fathom's own
// node_modules/.bin for the servers Fathom depends on, then PATH's absolute folders); otherwise the
// reason says which part is missing. In a workspace not trusted, nothing the repository ships runs:
// its node_modules/.bin is skipped (and the answer says so when it holds the server), TypeScript
// is Fathom's own, rust-analyzer runs no build scripts or proc macros. Pure lookups: starting
// servers is language-servers.ts' job.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface ServerSpec {
  id: string;
  name: string;
  /** Language ids (grammars/manifest.json) it serves, with the LSP languageId of each. */
  languages: Record<string, string>;
  /** Any of these, in the file's folder or one above it up to the workspace root, marks a project. */
  rootMarkers: string[];
  binary: string;
  args: string[];
  /** initializationOptions, given the server's project root. */
  initializationOptions?: () => unknown;
  /** initializationOptions in a workspace not trusted: none of the repository's code is run. */
  untrustedOptions?: () => unknown;
  /** Answers to workspace/configuration, by section (an empty object when unknown). */
  settings?: Record<string, unknown>;
  /**
   * How a push server is asked for a document's diagnostics without waiting for its publishes:
   * `tsserver` asks typescript-language-server's tsserver directly (`typescript.tsserverRequest`
   * with the *DiagnosticsSync commands), which answers for the text just synced, where its pushes
   * come 300–800 ms later with nothing to say a burst is over. Unset: pull when the server offers
   * `textDocument/diagnostic`, else wait for its publishes; `push`: wait for its publishes.
   */
  diagnosticsRequest?: 'tsserver' | 'push';
}

const require = createRequire(import.meta.url);

/** Fathom's own TypeScript, for projects that have none (typescript-language-server needs one). */
function bundledTypeScript(): string | undefined {
  try {
    return path.dirname(require.resolve('typescript/lib/tsserver.js'));
  } catch {
    return undefined;
  }
}

export const knownServers: readonly ServerSpec[] = [
  {
    id: 'typescript',
    name: 'typescript-language-server',
    languages: { typescript: 'typescript', tsx: 'typescriptreact', javascript: 'javascript' },
    rootMarkers: ['tsconfig.json', 'jsconfig.json', 'package.json'],
    binary: 'typescript-language-server',
    args: ['--stdio'],
    diagnosticsRequest: 'tsserver',
    initializationOptions: () => {
      const fallbackPath = bundledTypeScript();
      return fallbackPath ? { tsserver: { fallbackPath } } : {};
    },
    // The project's node_modules/typescript is repository code: Fathom's own tsserver instead
    // (tsserver then loads tsconfig plugins only from beside itself, not from the project).
    untrustedOptions: () => {
      const path = bundledTypeScript();
      return path ? { tsserver: { path } } : {};
    },
  },
  {
    id: 'pyright',
    name: 'pyright',
    languages: { python: 'python' },
    rootMarkers: ['pyrightconfig.json', 'pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt'],
    binary: 'pyright-langserver',
    args: ['--stdio'],
    settings: { python: {}, 'python.analysis': { diagnosticMode: 'openFilesOnly' } },
  },
  {
    id: 'clangd',
    name: 'clangd',
    languages: { c: 'c', cpp: 'cpp' },
    rootMarkers: ['compile_commands.json', 'compile_flags.txt', '.clangd'],
    binary: 'clangd',
    args: [],
  },
  { id: 'gopls', name: 'gopls', languages: { go: 'go' }, rootMarkers: ['go.mod', 'go.work'], binary: 'gopls', args: [] },
  {
    id: 'rust-analyzer',
    name: 'rust-analyzer',
    languages: { rust: 'rust' },
    rootMarkers: ['Cargo.toml'],
    binary: 'rust-analyzer',
    args: [],
    // build.rs and proc macros are the repository's code, run by cargo.
    untrustedOptions: () => ({ cargo: { buildScripts: { enable: false } }, procMacro: { enable: false } }),
  },
];

/** Fathom's own node_modules/.bin (the servers it depends on). */
function ownBinFolder(): string | undefined {
  let folder = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(folder, 'node_modules', '.bin');
    if (fs.existsSync(candidate)) return candidate;
    const parent = path.dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The project's own copy of a server (its node_modules/.bin), if it has one. */
export function projectBinary(binary: string, projectRoot: string): string | undefined {
  if (path.isAbsolute(binary)) return undefined;
  const candidate = path.join(projectRoot, 'node_modules', '.bin', binary);
  return executable(candidate) ? candidate : undefined;
}

/**
 * Where a server's binary is: the project's node_modules/.bin (only when `trusted`), Fathom's own,
 * then PATH (its absolute folders only: a relative one would name a folder of whatever project
 * the daemon was started in).
 */
export function resolveBinary(binary: string, projectRoot: string, options: { trusted: boolean }, searchPath = process.env.PATH ?? ''): string | undefined {
  if (path.isAbsolute(binary)) return executable(binary) ? binary : undefined;
  if (options.trusted) {
    const project = projectBinary(binary, projectRoot);
    if (project) return project;
  }
  const own = ownBinFolder();
  const folders = [...(own ? [own] : []), ...searchPath.split(path.delimiter).filter((folder) => path.isAbsolute(folder))];
  for (const folder of folders) {
    const candidate = path.join(folder, binary);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}

/** What a server is started with in a workspace not trusted: its untrusted initializationOptions. */
export function untrustedSpec(spec: ServerSpec): ServerSpec {
  return spec.untrustedOptions ? { ...spec, initializationOptions: spec.untrustedOptions } : spec;
}

/** What the answer says when a workspace not trusted has its own copy of the server, not used. */
export function declinedNotice(spec: ServerSpec, projectRoot: string, workspaceRoot: string): string | undefined {
  const own = projectBinary(spec.binary, projectRoot);
  const typescript = spec.id === 'typescript' && fs.existsSync(path.join(projectRoot, 'node_modules', 'typescript', 'lib', 'tsserver.js'));
  const buildScript = spec.id === 'rust-analyzer' && fs.existsSync(path.join(projectRoot, 'build.rs'));
  const declined = [
    own ? path.relative(workspaceRoot, own) : '',
    typescript ? path.relative(workspaceRoot, path.join(projectRoot, 'node_modules', 'typescript')) : '',
    buildScript ? 'build scripts and proc macros' : '',
  ].filter(Boolean);
  if (declined.length === 0) return undefined;
  const what = `not running the repository's ${declined.join(' and ')}`;
  return `${workspaceRoot} is not trusted: ${what} (Fathom's own or your configured ${spec.name} instead); \`fathom trust ${workspaceRoot}\` allows it`;
}

/** The nearest folder from the file's up to the workspace root that holds one of the markers. */
export function findProjectRoot(absoluteFile: string, workspaceRoot: string, markers: readonly string[]): string | undefined {
  for (let folder = path.dirname(absoluteFile); ; folder = path.dirname(folder)) {
    if (markers.some((marker) => fs.existsSync(path.join(folder, marker)))) return folder;
    if (folder === workspaceRoot || !folder.startsWith(workspaceRoot) || path.dirname(folder) === folder) return undefined;
  }
}

/**
 * Servers from a user's configuration file (JSON: `{ "servers": [ServerSpec, …] }`): an entry with
 * a known id replaces that server's fields it names (a binary path, arguments, markers); a new id
 * adds a server. A file that is missing gives the known servers; a malformed one throws with why.
 */
export function serversFromConfig(file: string | undefined, known: readonly ServerSpec[] = knownServers): ServerSpec[] {
  if (!file || !fs.existsSync(file)) return [...known];
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: not JSON (${(error as Error).message})`, { cause: error });
  }
  const entries = (parsed as { servers?: unknown }).servers;
  if (!Array.isArray(entries)) throw new Error(`${file}: expected { "servers": [ … ] }`);
  const servers = [...known];
  entries.forEach((entry, index) => {
    const spec = entry as Partial<ServerSpec>;
    if (typeof spec.id !== 'string' || spec.id === '') throw new Error(`${file}: servers[${index}].id must be a non-empty string`);
    const existing = servers.findIndex((server) => server.id === spec.id);
    const merged = { ...(existing >= 0 ? servers[existing] : {}), ...spec } as ServerSpec;
    const problems = [
      typeof merged.binary !== 'string' ? 'binary' : '',
      !Array.isArray(merged.args) ? 'args' : '',
      typeof merged.languages !== 'object' || merged.languages === null ? 'languages' : '',
      !Array.isArray(merged.rootMarkers) ? 'rootMarkers' : '',
      merged.diagnosticsRequest !== undefined && merged.diagnosticsRequest !== 'tsserver' && merged.diagnosticsRequest !== 'push'
        ? 'diagnosticsRequest to be "tsserver", "push" or absent'
        : '',
    ].filter(Boolean);
    if (problems.length > 0) throw new Error(`${file}: servers[${index}] (${spec.id}) needs ${problems.join(', ')}`);
    merged.name ??= merged.id;
    if (existing >= 0) servers[existing] = merged;
    else servers.push(merged);
  });
  return servers;
}

export type Availability =
  | { available: true; spec: ServerSpec; projectRoot: string; command: string; languageId: string; trusted: boolean; notice?: string }
  | { available: false; spec: ServerSpec | undefined; reason: string };

export class ServerRegistry {
  constructor(
    readonly servers: readonly ServerSpec[] = knownServers,
    /** Binary overrides by server id (a configured path). */
    private readonly binaries: Record<string, string> = {},
  ) {}

  specFor(language: string): ServerSpec | undefined {
    return this.servers.find((spec) => language in spec.languages);
  }

  /**
   * Whether a server can serve this file, and if not, which part is missing. `trusted`: whether
   * the workspace may run code it ships (see the module comment); when not, `notice` says what
   * was declined.
   */
  availability(absoluteFile: string, language: string | undefined, workspaceRoot: string, options: { trusted: boolean }): Availability {
    const spec = language === undefined ? undefined : this.specFor(language);
    if (!spec) return { available: false, spec: undefined, reason: `no language server is known for ${language ?? 'this file'}` };
    const projectRoot = findProjectRoot(absoluteFile, workspaceRoot, spec.rootMarkers);
    if (!projectRoot) return { available: false, spec, reason: `no ${spec.rootMarkers.join(' / ')} between the file and the workspace root` };
    const binary = this.binaries[spec.id] ?? spec.binary;
    const command = resolveBinary(binary, projectRoot, options);
    if (!command) {
      const declined = !options.trusted && projectBinary(binary, projectRoot) !== undefined;
      const where = options.trusted ? "project node_modules/.bin, Fathom's node_modules/.bin, PATH" : "Fathom's node_modules/.bin, PATH";
      return {
        available: false,
        spec,
        reason: declined ? (declinedNotice(spec, projectRoot, workspaceRoot) ?? `${binary} not found`) : `${binary} not found (${where})`,
      };
    }
    if (options.trusted) return { available: true, spec, projectRoot, command, languageId: spec.languages[language!]!, trusted: true };
    const notice = declinedNotice(spec, projectRoot, workspaceRoot);
    return {
      available: true,
      spec: untrustedSpec(spec),
      projectRoot,
      command,
      languageId: spec.languages[language!]!,
      trusted: false,
      ...(notice ? { notice } : {}),
    };
  }
}
