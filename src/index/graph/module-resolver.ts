// Where an import points: a module specifier as written in a file (`./util`, `..models`,
// `example.com/m/pkg`, `crate::a::b`, `com.foo`, `linux/slab.h`) → the workspace files that define
// the module, by each language's own rules, best-effort and without a compiler:
// - TypeScript/JavaScript: relative paths with the usual extensions, `index.*`, and `.js` written
//   for a `.ts` file; bare specifiers (packages) are external.
// - Python: leading dots climb from the file's package; dotted names are `a/b.py` or
//   `a/b/__init__.py`, found by path suffix (src layouts).
// - Go: the import path minus the module path of a go.mod in the workspace, else a directory whose
//   path ends with it; a package is every .go file of its directory.
// - Rust: `crate::`, `self::`, `super::` and `mod x;` map to `x.rs` / `x/mod.rs` from the crate's
//   src directory or the file's module directory.
// - Java: a package is a directory whose path ends with its dotted name.
// - C/C++: an include relative to the including file, else any file whose path ends with it.
// An empty answer means external (a package or system header outside the workspace). Answers are
// cached until the file set gains or loses a file.
import path from 'node:path';

export interface ModuleFiles {
  /** Every file of the file set, relative paths. */
  files(): Iterable<string>;
  /** Reads a workspace file (go.mod); undefined when it cannot. */
  read(relativePath: string): string | undefined;
}

const scriptExtensions = ['.ts', '.tsx', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts'];
const families: Record<string, string> = { typescript: 'script', tsx: 'script', javascript: 'script', c: 'c', cpp: 'c' };

/** Languages whose names resolve into each other (a .js file importing a .ts one, C++ including C). */
export function languageFamily(language: string | undefined): string {
  return language === undefined ? '' : (families[language] ?? language);
}

export class ModuleResolver {
  private all: Set<string> | undefined;
  private byDirectory: Map<string, string[]> | undefined;
  private byBasename: Map<string, string[]> | undefined;
  private goModules: Array<{ directory: string; module: string }> | undefined;
  private readonly cache = new Map<string, string[]>();
  private readonly canonical = new Map<string, string[]>();
  /** Grows whenever earlier answers may be stale (callers that keep answers compare it). */
  generation = 0;

  constructor(private readonly source: ModuleFiles) {}

  /** The file set gained or lost files: forget what was derived from it. */
  invalidate(): void {
    this.generation++;
    this.all = undefined;
    this.byDirectory = undefined;
    this.byBasename = undefined;
    this.goModules = undefined;
    this.cache.clear();
    this.canonical.clear();
  }

  /** A go.mod changed: its module path may have. */
  invalidateModules(): void {
    this.generation++;
    this.goModules = undefined;
    this.cache.clear();
    this.canonical.clear();
  }

  private ensureTables(): void {
    if (this.all) return;
    this.all = new Set();
    this.byDirectory = new Map();
    this.byBasename = new Map();
    for (const file of this.source.files()) {
      this.all.add(file);
      const slash = file.lastIndexOf('/');
      const directory = slash < 0 ? '' : file.slice(0, slash);
      const base = file.slice(slash + 1);
      let list = this.byDirectory.get(directory);
      if (!list) this.byDirectory.set(directory, (list = []));
      list.push(file);
      let named = this.byBasename.get(base);
      if (!named) this.byBasename.set(base, (named = []));
      named.push(file);
    }
  }

  private has(file: string): boolean {
    this.ensureTables();
    return this.all!.has(file);
  }

  private filesIn(directory: string): string[] {
    this.ensureTables();
    return this.byDirectory!.get(directory) ?? [];
  }

  /** Files whose path is `suffix` or ends with `/suffix`, shortest paths first (at most `limit`). */
  private withSuffix(suffix: string, limit = 8): string[] {
    this.ensureTables();
    const base = suffix.slice(suffix.lastIndexOf('/') + 1);
    const found = (this.byBasename!.get(base) ?? []).filter((file) => file === suffix || file.endsWith(`/${suffix}`));
    return found.sort((a, b) => a.length - b.length || (a < b ? -1 : 1)).slice(0, limit);
  }

  /** The files a specifier written in `fromFile` (of `language`) names; [] when external or not found. */
  resolve(fromFile: string, language: string | undefined, specifier: string): string[] {
    const directory = path.posix.dirname(fromFile);
    const key = `${languageFamily(language)}\u0000${language === 'rust' || language === 'python' ? fromFile : directory}\u0000${specifier}`;
    let found = this.cache.get(key);
    if (!found) {
      found = this.compute(fromFile, directory === '.' ? '' : directory, language, specifier);
      // One array per distinct answer: callers that remember answers by module list (the
      // resolver's memo) then share them across folders including the same header.
      const content = found.join('\u0000');
      const canonical = this.canonical.get(content);
      if (canonical) found = canonical;
      else this.canonical.set(content, found);
      this.cache.set(key, found);
    }
    return found;
  }

  private compute(fromFile: string, directory: string, language: string | undefined, specifier: string): string[] {
    switch (languageFamily(language)) {
      case 'script':
        return this.script(directory, specifier);
      case 'python':
        return this.python(directory, specifier);
      case 'go':
        return this.go(specifier);
      case 'rust':
        return this.rust(fromFile, directory, specifier);
      case 'java':
        return this.java(specifier);
      case 'c':
        return this.include(directory, specifier);
      default:
        return [];
    }
  }

  private script(directory: string, specifier: string): string[] {
    if (!specifier.startsWith('.')) return [];
    const target = path.posix.normalize(path.posix.join(directory, specifier));
    if (target.startsWith('..')) return [];
    const candidates: string[] = [];
    // ESM TypeScript writes the emitted name: './util.js' for util.ts.
    const emitted = /\.(m|c)?jsx?$/.exec(target);
    if (emitted) for (const extension of scriptExtensions) candidates.push(target.slice(0, -emitted[0].length) + extension);
    candidates.push(target);
    for (const extension of scriptExtensions) candidates.push(target + extension);
    for (const extension of scriptExtensions) candidates.push(`${target}/index${extension}`);
    const found = candidates.find((candidate) => this.has(candidate));
    return found === undefined ? [] : [found];
  }

  private python(directory: string, specifier: string): string[] {
    const dots = /^\.*/.exec(specifier)![0].length;
    const rest = specifier.slice(dots).split('.').filter(Boolean).join('/');
    if (dots > 0) {
      let base = directory;
      for (let level = 1; level < dots; level++) base = base.includes('/') ? base.slice(0, base.lastIndexOf('/')) : '';
      const target = base === '' ? rest : rest === '' ? base : `${base}/${rest}`;
      if (rest === '') return this.has(`${base === '' ? '' : `${base}/`}__init__.py`) ? [`${base === '' ? '' : `${base}/`}__init__.py`] : [];
      for (const candidate of [`${target}.py`, `${target}/__init__.py`, `${target}.pyi`]) if (this.has(candidate)) return [candidate];
      return [];
    }
    if (rest === '') return [];
    // An absolute import names a module from a root of the import path: a match counts only when
    // the folder above it is no package (`import html` is not django/utils/html.py, which is
    // django.utils.html).
    const rooted = (file: string, suffix: string): boolean => {
      const prefix = file.slice(0, file.length - suffix.length).replace(/\/$/, '');
      return prefix === '' || !this.has(`${prefix}/__init__.py`);
    };
    const found = [
      ...this.withSuffix(`${rest}.py`, 8).filter((file) => rooted(file, `${rest}.py`)),
      ...this.withSuffix(`${rest}/__init__.py`, 8).filter((file) => rooted(file, `${rest}/__init__.py`)),
    ];
    return found.length > 0 ? [found.sort((a, b) => a.length - b.length)[0]!] : [];
  }

  private go(importPath: string): string[] {
    if (!this.goModules) {
      this.goModules = [];
      this.ensureTables();
      for (const file of this.byBasename!.get('go.mod') ?? []) {
        const text = this.source.read(file);
        const module = text && /^module\s+(\S+)/m.exec(text)?.[1];
        if (module) this.goModules.push({ directory: path.posix.dirname(file) === '.' ? '' : path.posix.dirname(file), module });
      }
    }
    const goFiles = (directory: string) => this.filesIn(directory).filter((file) => file.endsWith('.go'));
    for (const { directory, module } of this.goModules) {
      if (importPath === module || importPath.startsWith(`${module}/`)) {
        const rest = importPath.slice(module.length + 1);
        const target = [directory, rest].filter(Boolean).join('/');
        return goFiles(target);
      }
    }
    // vendor/ or a GOPATH layout: a directory whose path ends with the import path.
    this.ensureTables();
    for (const directory of this.byDirectory!.keys()) {
      if (directory === importPath || directory.endsWith(`/${importPath}`)) {
        const files = goFiles(directory);
        if (files.length > 0) return files;
      }
    }
    return [];
  }

  /** The directory holding a Rust file's child modules, and the crate's src directory. */
  private rustModuleDirectory(fromFile: string, directory: string): string {
    const base = path.posix.basename(fromFile, '.rs');
    return base === 'mod' || base === 'lib' || base === 'main' ? directory : [directory, base].filter(Boolean).join('/');
  }

  private rust(fromFile: string, directory: string, specifier: string): string[] {
    const segments = specifier.split('::').filter(Boolean);
    if (segments.length === 0) return [];
    let base: string;
    const first = segments[0]!;
    if (first === 'crate') {
      let at = directory;
      while (at !== '' && !at.endsWith('src') && !this.has(`${at}/lib.rs`) && !this.has(`${at}/main.rs`))
        at = at.includes('/') ? at.slice(0, at.lastIndexOf('/')) : '';
      base = at;
      segments.shift();
    } else if (first === 'self' || first === 'super') {
      base = this.rustModuleDirectory(fromFile, directory);
      while (segments[0] === 'self' || segments[0] === 'super') {
        if (segments.shift() === 'super') base = base.includes('/') ? base.slice(0, base.lastIndexOf('/')) : '';
      }
    } else {
      // `mod x;` (one segment naming a child module) or a path from the current module.
      base = this.rustModuleDirectory(fromFile, directory);
    }
    const target = [base, ...segments].filter(Boolean).join('/');
    if (segments.length === 0) {
      for (const root of ['lib.rs', 'main.rs', 'mod.rs'])
        if (this.has(`${target === '' ? '' : `${target}/`}${root}`)) return [`${target === '' ? '' : `${target}/`}${root}`];
      return [];
    }
    for (const candidate of [`${target}.rs`, `${target}/mod.rs`]) if (this.has(candidate)) return [candidate];
    return [];
  }

  private java(specifier: string): string[] {
    const directory = specifier.split('.').join('/');
    this.ensureTables();
    const found: string[] = [];
    for (const [candidate, files] of this.byDirectory!) {
      if (candidate === directory || candidate.endsWith(`/${directory}`)) found.push(...files.filter((file) => file.endsWith('.java') || file.endsWith('.kt')));
    }
    if (found.length > 0) return found;
    // `import com.foo.Bar.Inner`: the scope may be a class, not a package.
    return this.withSuffix(`${directory}.java`, 2);
  }

  private include(directory: string, specifier: string): string[] {
    const relative = path.posix.normalize(path.posix.join(directory, specifier));
    if (!relative.startsWith('..') && this.has(relative)) return [relative];
    return this.withSuffix(path.posix.normalize(specifier).replace(/^(\.\.\/)+/, ''), 4);
  }
}
