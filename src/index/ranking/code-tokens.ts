// Code-aware terms for the chunk ranking: the one place that decides what a word is, for the
// indexed chunks and for the questions asked of them alike (a term that is cut differently on the
// two sides never meets). An identifier gives its parts (camelCase, snake_case, kebab-case,
// letters/digits: `parseHTTPHeader2` → parse, http, header, 2), each lower-cased and Porter-stemmed
// (the `stemmer` package), plus the whole identifier lower-cased, unstemmed and without `_`/`$` when it has
// more than one part, so a query that names it exactly ranks it first. English stop words and the
// keywords every language is full of are dropped; so is a one-letter part.
import { stemmer } from 'stemmer';

/** Words that carry no meaning in a question or in code (English function words, common keywords, question words). */
const stopWords = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by can could did do does doing done down during each ' +
    'few for from further had has have having he her here hers him his how i if in into is it its itself just me more most my no nor not now of off on once only or other ' +
    'our out over own same she should so some such than that the their them then there these they this those through to too under until up very was we were what when ' +
    'where which while who whom why will with would you your yours since also ' +
    // keywords and boilerplate that every file of a language repeats
    'self cls def var let const function return else elif import export default new void null none nil undefined true false ' +
    'public private protected static final int str bool string number boolean object any unknown typeof instanceof ' +
    // question framing
    'code codebase implemented implementation implement find show get gets happen happens happening work works used use uses using way place'
  ).split(' '),
);

/** Stems are memoised: code repeats the same words (the table is bounded so a huge corpus cannot grow it forever). */
const stems = new Map<string, string>();
const maxStems = 200_000;

export function stem(word: string): string {
  let stemmed = stems.get(word);
  if (stemmed === undefined) {
    stemmed = copied(word.length <= 3 ? word : stemmer(word));
    if (stems.size >= maxStems) stems.clear();
    stems.set(copied(word), stemmed);
  }
  return stemmed;
}

/**
 * A string that holds its own characters: a long match or part of a chunk's text is a slice of
 * it, and a table that kept the slice would keep the whole text alive (V8 flattens the
 * concatenation into a new string; the slice of it holds that one).
 */
function copied(text: string): string {
  return text.length < 13 ? text : (' ' + text).slice(1);
}

export function isStopWord(word: string): boolean {
  return stopWords.has(word);
}

const identifierPattern = /[A-Za-z_$][A-Za-z0-9_$]*|[0-9]+/g;
// Lower→Upper, Upper→Upper+lower (HTTPServer → HTTP Server), letter↔digit.
const partPattern = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;

/**
 * Each identifier's terms (its parts, then the whole when it has several), memoised: code repeats
 * its identifiers, and splitting, lower-casing and stemming one costs more than a lookup. Bounded;
 * the keys are copies, never slices of a chunk's text (a slice keeps all of that text alive).
 */
const identifierTerms = new Map<string, { parts: string[]; whole: string | undefined }>();
const maxIdentifiers = 50_000;

function termsOfIdentifier(identifier: string): { parts: string[]; whole: string | undefined } {
  let found = identifierTerms.get(identifier);
  if (found === undefined) {
    const parts: string[] = [];
    let count = 0;
    partPattern.lastIndex = 0;
    let part: RegExpExecArray | null;
    while ((part = partPattern.exec(identifier)) !== null) {
      count++;
      const lower = part[0].toLowerCase();
      if (lower.length < 2 || stopWords.has(lower)) continue;
      parts.push(stem(lower));
    }
    // `parse_cookie`, `parseCookie` and `ParseCookie` are one whole identifier: `parsecookie`.
    found = { parts, whole: count > 1 ? copied(identifier.toLowerCase().replace(/[_$]/g, '')) : undefined };
    if (identifierTerms.size >= maxIdentifiers) identifierTerms.clear();
    identifierTerms.set(copied(identifier), found);
  }
  return found;
}

/**
 * Calls `emit` with each term of `text` in order. `whole` (default true): also the whole
 * identifier when it has several parts.
 */
export function forEachTerm(text: string, emit: (term: string) => void, whole = true): void {
  identifierPattern.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = identifierPattern.exec(text)) !== null) {
    const identifier = match[0];
    if (identifier.length > 64) continue; // a hash, a base64 blob: not a word anyone asks for
    const terms = termsOfIdentifier(identifier);
    for (const term of terms.parts) emit(term);
    if (whole && terms.whole !== undefined) emit(terms.whole);
  }
}

/** The terms of a text, in order, repeats kept. */
export function termsOf(text: string, whole = true): string[] {
  const out: string[] = [];
  forEachTerm(text, (term) => out.push(term), whole);
  return out;
}

/** The distinct terms of a question, in order of first appearance. */
export function queryTerms(question: string): string[] {
  return [...new Set(termsOf(question))];
}
