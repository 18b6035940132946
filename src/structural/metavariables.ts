// Metavariables in structural patterns: `$X` (one named node, bound), `$_` / `$_X` (one named
// node, not bound), `$$X` (one node, named or not, bound), `$$$X` (zero or more nodes, bound),
// `$$$` / `$$$_` (zero or more, not bound). Names are upper-case letters, digits and `_`, starting
// with a letter or `_`.
//
// Where `$` cannot start an identifier in a language, the pattern is rewritten before parsing:
// each metavariable's `$` becomes that language's expando text (`µ` for most, as ast-grep does),
// so the metavariable parses as an identifier and is recognised afterwards by its text.
// Owns that rewriting (with the offset map back to the user's text) and recognising a node's text
// as a metavariable.

export type MetaVariable = { kind: 'single'; name: string | undefined; namedOnly: boolean } | { kind: 'multi'; name: string | undefined };

/** Each language's replacement for `$` in metavariables (languages not listed keep `$`). */
const expandos: Record<string, string> = {
  c: 'µ',
  cpp: 'µ',
  c_sharp: 'µ',
  go: 'µ',
  kotlin: 'µ',
  php: 'µ',
  python: 'µ',
  ruby: 'µ',
  rust: 'µ',
  swift: 'µ',
  // tree-sitter-scala (tree-sitter-wasms 0.1.13) takes neither `$` nor non-ASCII letters in names.
  scala: '_fathom_',
};

export function expandoOf(language: string): string {
  return expandos[language] ?? '$';
}

const metaToken = /\$\$\$(?:[A-Z_][A-Z0-9_]*)?|\$\$[A-Z_][A-Z0-9_]*|\$[A-Z_][A-Z0-9_]*/g;

export interface ExpandedPattern {
  text: string;
  /** origin[i] = offset in the user's pattern of code unit i of `text` (length text.length + 1). */
  origin: number[];
}

/** The pattern with each metavariable's `$` replaced by the language's expando text. */
export function expandPattern(pattern: string, language: string): ExpandedPattern {
  const expando = expandoOf(language);
  let text = '';
  const origin: number[] = [];
  let last = 0;
  const copy = (from: number, to: number): void => {
    for (let offset = from; offset < to; offset++) origin.push(offset);
    text += pattern.slice(from, to);
  };
  for (const match of pattern.matchAll(metaToken)) {
    copy(last, match.index);
    let offset = match.index;
    for (const character of match[0]) {
      if (character === '$') {
        for (let i = 0; i < expando.length; i++) origin.push(offset);
        text += expando;
      } else {
        origin.push(offset);
        text += character;
      }
      offset += 1;
    }
    last = match.index + match[0].length;
  }
  copy(last, pattern.length);
  origin.push(pattern.length);
  return { text, origin };
}

/** Recognises metavariables written with a language's expando text. */
export class MetaVariableReader {
  private readonly expando: string;
  private readonly expression: RegExp;

  constructor(language: string) {
    this.expando = expandoOf(language);
    const e = this.expando.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    this.expression = new RegExp(`^(${e}${e}${e}|${e}${e}|${e})([A-Z_][A-Z0-9_]*)?$`);
  }

  /** Where each metavariable written in `text` ends (offsets into `text`). */
  ends(text: string): number[] {
    const e = this.expando.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const token = new RegExp(`(?:${e}){1,3}[A-Z_][A-Z0-9_]*|(?:${e}){3}`, 'g');
    return [...text.matchAll(token)].map((match) => match.index + match[0].length);
  }

  /** The metavariable a node's whole text spells, if any. */
  read(text: string): MetaVariable | undefined {
    if (text.length > 80) return undefined;
    const match = this.expression.exec(text);
    if (!match) return undefined;
    const count = match[1]!.length / this.expando.length;
    const name = match[2];
    const bound = name !== undefined && !name.startsWith('_') ? name : undefined;
    if (count === 3) return { kind: 'multi', name: bound };
    if (name === undefined) return undefined; // `$` or `$$` alone are not metavariables
    return { kind: 'single', name: bound, namedOnly: count === 1 };
  }
}
