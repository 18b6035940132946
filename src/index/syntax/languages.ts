// The language table: which grammar parses which file. Owns reading grammars/manifest.json and
// detecting a file's language by name, extension or `#!` line. Called by the grammar set, the
// chunker and (later) structural search and the code graph. Pure data; loads no wasm.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface LanguageSpec {
  /** Stable id, also the folder of its queries under grammars/. */
  id: string;
  /** Human name, used in chunk headers. */
  name: string;
  /** Absolute path of the wasm grammar. */
  wasmPath: string;
  extensions: readonly string[];
  filenames: readonly string[];
  interpreters: readonly string[];
  /**
   * Deepest node at which a chunks.scm pattern may start (tree-sitter's maxStartDepth): entities
   * deeper than this are not named. Bounds the query's cost on large trees (default 8).
   */
  entityDepth: number;
  /** Why the grammar is not used (files fall back to line windows), when it is not. */
  disabled: string | undefined;
  /** grammars/<id>/chunks.scm when present. */
  chunksQueryPath: string | undefined;
  /** grammars/<id>/tags.scm when present. */
  tagsQueryPath: string | undefined;
}

interface ManifestEntry {
  name: string;
  wasm: string;
  extensions?: string[];
  filenames?: string[];
  interpreters?: string[];
  entityDepth?: number;
  disabled?: string;
}

/** grammars/ at the repository root, found from this file in src/ or dist/src/. */
export function grammarsFolder(): string {
  let folder = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(folder, 'grammars', 'manifest.json');
    if (fs.existsSync(candidate)) return path.dirname(candidate);
    const parent = path.dirname(folder);
    if (parent === folder) throw new Error('grammars/manifest.json not found above ' + fileURLToPath(import.meta.url));
    folder = parent;
  }
}

function wasmFolder(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('tree-sitter-wasms/package.json')), 'out');
}

export class LanguageTable {
  readonly languages: ReadonlyMap<string, LanguageSpec>;
  private readonly byExtension = new Map<string, LanguageSpec>();
  private readonly byFilename = new Map<string, LanguageSpec>();
  private readonly byInterpreter = new Map<string, LanguageSpec>();

  constructor(private readonly folder: string = grammarsFolder()) {
    const manifestFolder = folder;
    const manifest = JSON.parse(fs.readFileSync(path.join(manifestFolder, 'manifest.json'), 'utf8')) as { languages: Record<string, ManifestEntry> };
    const wasms = wasmFolder();
    const languages = new Map<string, LanguageSpec>();
    for (const [id, entry] of Object.entries(manifest.languages)) {
      const query = (file: string): string | undefined => {
        const full = path.join(manifestFolder, id, file);
        return fs.existsSync(full) ? full : undefined;
      };
      const spec: LanguageSpec = {
        id,
        name: entry.name,
        wasmPath: path.join(wasms, entry.wasm),
        extensions: entry.extensions ?? [],
        filenames: entry.filenames ?? [],
        interpreters: entry.interpreters ?? [],
        entityDepth: entry.entityDepth ?? 8,
        disabled: entry.disabled,
        chunksQueryPath: query('chunks.scm'),
        tagsQueryPath: query('tags.scm'),
      };
      languages.set(id, spec);
      for (const extension of spec.extensions) this.byExtension.set(extension, spec);
      for (const filename of spec.filenames) this.byFilename.set(filename, spec);
      for (const interpreter of spec.interpreters) this.byInterpreter.set(interpreter, spec);
    }
    this.languages = languages;
  }

  /**
   * A language named by a user: its id (`python`), its name in any case (`C++`, `c#`), or one of
   * its extensions without the dot (`py`, `rs`, `hpp`). Undefined when nothing matches.
   */
  resolve(name: string): LanguageSpec | undefined {
    const byId = this.languages.get(name);
    if (byId) return byId;
    const lower = name.toLowerCase();
    for (const spec of this.languages.values()) if (spec.name.toLowerCase() === lower) return spec;
    return this.byExtension.get(`.${name}`) ?? this.byExtension.get(`.${lower}`);
  }

  /**
   * The text of a language's query (`chunks` or `tags`), with the queries it inherits first: a
   * line `; inherits: a, b` (tree-sitter's convention) pulls in grammars/a/<kind>.scm and
   * grammars/b/<kind>.scm, recursively (a folder need not be a language: `ecma` holds what
   * JavaScript and TypeScript share). Undefined when the language has no such file.
   */
  queryText(id: string, kind: 'chunks' | 'tags'): string | undefined {
    const read = (name: string, seen: Set<string>): string | undefined => {
      const file = path.join(this.folder, name, `${kind}.scm`);
      if (seen.has(name) || !fs.existsSync(file)) return undefined;
      seen.add(name);
      const own = fs.readFileSync(file, 'utf8');
      const inherited = [...own.matchAll(/^;\s*inherits:\s*(.+)$/gm)].flatMap((match) =>
        match[1]!
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean),
      );
      return [...inherited.map((parent) => read(parent, seen) ?? ''), own].join('\n');
    };
    return this.languages.has(id) ? read(id, new Set()) : undefined;
  }

  /**
   * The language of a file: by its exact name, then its extension (case-sensitive first, then
   * lower-cased: `.H` is C, `.C` falls back to C), then the interpreter on a `#!` first line
   * (`#!/usr/bin/env python3`, `#!/bin/sh -e`). Undefined when nothing matches.
   */
  detect(filePath: string, firstBytes?: Uint8Array): LanguageSpec | undefined {
    const base = path.basename(filePath);
    const byName = this.byFilename.get(base);
    if (byName) return byName;
    const extension = path.extname(base);
    if (extension) {
      const byExtension = this.byExtension.get(extension) ?? this.byExtension.get(extension.toLowerCase());
      if (byExtension) return byExtension;
    }
    if (firstBytes && firstBytes[0] === 0x23 && firstBytes[1] === 0x21) {
      const newline = firstBytes.indexOf(0x0a);
      const line = Buffer.from(firstBytes.subarray(2, newline < 0 ? Math.min(firstBytes.length, 256) : newline)).toString('latin1');
      const words = line.trim().split(/\s+/);
      let program = path.basename(words[0] ?? '');
      if (program === 'env') program = words.slice(1).find((word) => !word.startsWith('-') && !word.includes('=')) ?? '';
      const interpreter = program.replace(/[\d.]+$/, '') || program;
      return this.byInterpreter.get(program) ?? this.byInterpreter.get(interpreter);
    }
    return undefined;
  }
}
