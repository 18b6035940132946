// The new-diagnostics ledger: per ledger key (an editor connection, an agent's conversation) and
// file, how many diagnostics of each identity were already reported, where identity is severity +
// code + source + message, never position: a diagnostic that moved because lines were inserted
// above it is not new; two of an identity where one was reported means one new. What is no longer
// there leaves the ledger, so a regression that comes back is new again. Bounded (least recently
// used keys go first).
import type { LspDiagnostic } from './language-server.js';

export function identity(diagnostic: LspDiagnostic): string {
  return [diagnostic.severity ?? 0, diagnostic.code ?? '', diagnostic.source ?? '', diagnostic.message].join('\u0000');
}

function counts(diagnostics: readonly LspDiagnostic[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const diagnostic of diagnostics) map.set(identity(diagnostic), (map.get(identity(diagnostic)) ?? 0) + 1);
  return map;
}

export class DiagnosticLedger {
  private readonly entries = new Map<string, Map<string, Map<string, number>>>();

  constructor(private readonly maxKeys = 256) {}

  /** Whether this key has a record for the file (else its current diagnostics are the baseline). */
  knows(key: string, uri: string): boolean {
    return this.entries.get(key)?.has(uri) ?? false;
  }

  /** Records diagnostics as already seen (the baseline before a first edit). */
  remember(key: string, uri: string, diagnostics: readonly LspDiagnostic[]): void {
    this.files(key).set(uri, counts(diagnostics));
  }

  /**
   * The diagnostics not reported before; records the current set. When an identity now has more
   * instances than were reported, which ones are new is a guess: the later ones in the file.
   */
  report(key: string, uri: string, diagnostics: readonly LspDiagnostic[]): LspDiagnostic[] {
    const files = this.files(key);
    const before = files.get(uri) ?? new Map<string, number>();
    const seen = new Map<string, number>();
    const fresh: LspDiagnostic[] = [];
    const inOrder = [...diagnostics].sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
    for (const diagnostic of inOrder) {
      const id = identity(diagnostic);
      const index = (seen.get(id) ?? 0) + 1;
      seen.set(id, index);
      if (index > (before.get(id) ?? 0)) fresh.push(diagnostic);
    }
    files.set(uri, seen);
    return fresh;
  }

  private files(key: string): Map<string, Map<string, number>> {
    let files = this.entries.get(key);
    if (files) {
      this.entries.delete(key);
    } else {
      files = new Map();
      while (this.entries.size >= this.maxKeys) this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(key, files);
    return files;
  }

  /** Drops a key (a client went away). */
  forget(key: string): void {
    this.entries.delete(key);
  }
}
