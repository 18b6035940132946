// The chunk: what the chunker produces for each piece of a file, and its options. Plain data
// that crosses worker threads and is converted to the wire by the daemon's to-wire.ts.
import type { TextPosition } from './source-text.js';

export interface ChunkEntity {
  kind: string;
  name: string;
  signature: string;
}

export interface Chunk {
  /** [startByte, endByte) into the file's bytes: `bytes.subarray(startByte, endByte)` is the chunk. */
  startByte: number;
  endByte: number;
  /** 0-based line and UTF-16 character; `end` is exclusive. */
  start: TextPosition;
  end: TextPosition;
  /** 'syntax' when cut on a syntax tree, 'lines' for line windows (no grammar, or it failed). */
  method: 'syntax' | 'lines';
  /** The chunk touches an ERROR or MISSING node. */
  parseError: boolean;
  /** Over the budget because it could not be split (one long token, string or comment). */
  oversized: boolean;
  /** Names of the entities enclosing the chunk, outermost first, then the chunk's own entity when it holds exactly one. */
  scope: string[];
  /** Entities that start and end inside the chunk and are not inside another of them. */
  entities: ChunkEntity[];
  /** The source text of the chunk (bytes that are not UTF-8 read as U+FFFD). */
  text: string;
  /** The context header: path, language, scope, enclosing signatures, doc, imports used, neighbours. */
  header: string;
}

export interface ChunkOptions {
  /** Most bytes in one chunk (default 1,500). */
  budgetBytes?: number;
  /** Parse no longer than this (ms); past it the file falls back to line windows (default 10,000). */
  parseTimeoutMs?: number;
}

export interface FileChunks {
  /** The path as given (relative to the workspace root when it came from a workspace). */
  path: string;
  /** Language id from grammars/manifest.json, or undefined when none matched. */
  language: string | undefined;
  languageName: string | undefined;
  byteLength: number;
  chunks: Chunk[];
  /** The tree has ERROR or MISSING nodes. */
  parseErrors: boolean;
  /** Why line windows were used despite a language, or other trouble worth showing. */
  problems: string[];
}

export const defaultBudgetBytes = 1500;

/** `header`, a separator, then the text: what gets embedded. */
export function contextualizedText(chunk: Chunk): string {
  return `${chunk.header}\n---\n${chunk.text}`;
}
