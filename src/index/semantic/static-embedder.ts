// Embeds with a static model (Fathom's own: a table of one vector per token, model/export.py)
// without onnxruntime: the same tokenizer transformers.js runs for the folder (BERT normalisation
// and pre-tokenisation, WordPiece from tokenizer.json, truncation to model_max_length with the
// [CLS]/[SEP] it adds), then the mean of the tokens' rows, normalised: what the ONNX graph and
// transformers.js' mean pooling compute, an order of magnitude faster (no tensors, a word cache).
// With "pooling": "distinct" in fathom.json each token counts once per text (the ONNX graph gives
// a repeated token a zero row, model/export.py), which the training used.
// The table is read from the ONNX file's `embeddings` initializer (a small protobuf reader: the
// graph is one Gather, maybe followed by a Cast and, for "pooling": "distinct", the mask of
// repeated tokens). A folder opts in with "static": true in its fathom.json; a pooling that is not
// its graph's is refused; test/index/semantic/semantic.test.ts checks both paths give the same vectors.
import fs from 'node:fs';
import path from 'node:path';
import { halfBits, halfTable } from '../../base/half-float.js';
import type { Embedder } from './embed-pool.js';
import type { ModelFolder } from './model-folder.js';

interface Field {
  number: number;
  wire: number;
  value: number | Buffer;
}

function* fields(bytes: Buffer): Generator<Field> {
  let at = 0;
  const varint = (): number => {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (at >= bytes.length) throw new Error('a protobuf varint runs past the end of the file');
      const byte = bytes[at++]!;
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 128;
    }
  };
  while (at < bytes.length) {
    const key = varint();
    const number = Math.floor(key / 8);
    const wire = key % 8;
    if (wire === 0) yield { number, wire, value: varint() };
    else if (wire === 2) {
      const length = varint();
      if (at + length > bytes.length) throw new Error('a protobuf field runs past the end of the file');
      yield { number, wire, value: bytes.subarray(at, at + length) };
      at += length;
    } else if (wire === 5) at += 4;
    else if (wire === 1) at += 8;
    else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
}

/** A static model's table: rows × columns as float32, and its graph's op types, in order. */
export interface EmbeddingTable {
  rows: number;
  columns: number;
  table: Float32Array;
  ops: string[];
}

/** A static model's ONNX file (q8 or fp32, as its folder has it). */
export function staticModelFile(model: ModelFolder): string {
  return path.join(model.dir, 'onnx', model.dtype === 'q8' ? 'model_quantized.onnx' : 'model.onnx');
}

/** The `embeddings` initializer of an ONNX model as it lies in the file (no copy), and its graph's op types. */
interface StoredEmbeddings {
  rows: number;
  columns: number;
  /** ONNX's TensorProto data type: 1 float32, 10 float16. */
  type: number;
  raw: Buffer;
  ops: string[];
}

/** One walk of an ONNX model's graph: its op types and its 2-d `embeddings` initializer. */
function storedEmbeddings(onnxFile: string): StoredEmbeddings {
  const model = fs.readFileSync(onnxFile);
  const ops: string[] = [];
  let found: Omit<StoredEmbeddings, 'ops'> | undefined;
  for (const field of fields(model)) {
    if (field.number !== 7 || !Buffer.isBuffer(field.value)) continue; // ModelProto.graph
    for (const graphField of fields(field.value)) {
      if (!Buffer.isBuffer(graphField.value)) continue;
      if (graphField.number === 1) {
        // GraphProto.node: its NodeProto.op_type
        for (const nodeField of fields(graphField.value)) if (nodeField.number === 4 && Buffer.isBuffer(nodeField.value)) ops.push(nodeField.value.toString());
        continue;
      }
      if (graphField.number !== 5 || found) continue; // GraphProto.initializer
      const dims: number[] = [];
      let type = 0;
      let name = '';
      let raw: Buffer | undefined;
      for (const tensor of fields(graphField.value)) {
        if (tensor.number === 1 && typeof tensor.value === 'number') dims.push(tensor.value);
        else if (tensor.number === 2 && typeof tensor.value === 'number') type = tensor.value;
        else if (tensor.number === 8 && Buffer.isBuffer(tensor.value)) name = tensor.value.toString();
        else if (tensor.number === 9 && Buffer.isBuffer(tensor.value)) raw = tensor.value;
      }
      if (name !== 'embeddings' || !raw || dims.length !== 2) continue;
      const [rows, columns] = dims as [number, number];
      if (!((type === 1 && raw.length === rows * columns * 4) || (type === 10 && raw.length === rows * columns * 2)))
        throw new Error(`${onnxFile}: the embeddings initializer is neither float32 nor float16 of ${rows}×${columns}`);
      found = { rows, columns, type, raw };
    }
  }
  if (!found) throw new Error(`${onnxFile} has no 2-d "embeddings" initializer: not a static model`);
  return { ...found, ops };
}

/**
 * The `embeddings` initializer of an ONNX model and its graph's op types: one read, one walk. The
 * table lies in a SharedArrayBuffer: the embedding workers read the daemon's copy, none of their own.
 */
export function readEmbeddingTable(onnxFile: string): EmbeddingTable {
  const { rows, columns, type, raw, ops } = storedEmbeddings(onnxFile);
  const table = new Float32Array(new SharedArrayBuffer(rows * columns * 4));
  if (type === 1) table.set(new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length)));
  else {
    // Through a table of all 65,536 halves: a lookup a number (the kernel's restart paid 0.9 s converting each one).
    const halves = halfBits(raw);
    const floats = halfTable();
    for (let at = 0; at < table.length; at++) table[at] = floats[halves[at]!]!;
  }
  return { rows, columns, table, ops };
}

/** The pooling fathom.json names must be the graph's, or the two paths would disagree. */
function checkPooling(model: ModelFolder, ops: readonly string[]): void {
  const masksRepeats = ops.includes('Trilu');
  if (masksRepeats !== (model.settings.pooling === 'distinct')) {
    throw new Error(
      `${model.dir}: fathom.json says pooling "${model.settings.pooling ?? 'sum'}" but the ONNX graph ${masksRepeats ? 'counts each token once (pooling "distinct")' : 'sums every token (pooling "sum")'}`,
    );
  }
}

/**
 * The vector size of a static model, from its table's shape alone (no conversion of the table:
 * status asks it), its pooling checked against the graph as the embedder checks it.
 */
export function readEmbeddingDimensions(model: ModelFolder): number {
  const { columns, ops } = storedEmbeddings(staticModelFile(model));
  checkPooling(model, ops);
  return columns;
}

function isPunctuation(character: string): boolean {
  const code = character.codePointAt(0)!;
  if ((code >= 33 && code <= 47) || (code >= 58 && code <= 64) || (code >= 91 && code <= 96) || (code >= 123 && code <= 126)) return true;
  return /\p{P}/u.test(character);
}

/** As transformers.js checks it: per UTF-16 code unit, so characters past the BMP are never padded. */
function isChinese(code: number): boolean {
  if (code > 0xffff) return false;
  return (
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x20000 && code <= 0x2a6df) ||
    (code >= 0x2a700 && code <= 0x2b73f) ||
    (code >= 0x2b740 && code <= 0x2b81f) ||
    (code >= 0x2b820 && code <= 0x2ceaf) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0x2f800 && code <= 0x2fa1f)
  );
}

/** Lower-case ASCII with no control but tab, newline and return: `asciiIds` splits it. */

const plainAscii = /^[\t\n\r\x20-\x7e]*$/;
const wordByte = 0;
const spaceByte = 1;
const punctuationByte = 2;
const droppedByte = 3;
/**
 * What BERT's pre-tokeniser makes of each ASCII byte (`words` and `asciiIds` alike): tab, newline,
 * return and space separate; other controls (VT, FF…) are dropped; ASCII punctuation is a word of
 * its own.
 */
const asciiKinds = new Uint8Array(128).map((_, code) =>
  code === 32 || code === 9 || code === 10 || code === 13
    ? spaceByte
    : code < 32 || code === 127
      ? droppedByte
      : (code >= 33 && code <= 47) || (code >= 58 && code <= 64) || (code >= 91 && code <= 96) || (code >= 123 && code <= 126)
        ? punctuationByte
        : wordByte,
);

export class StaticEmbedder implements Embedder {
  readonly modelId: string;
  private readonly vocabulary = new Map<string, number>();
  private readonly specials = new Map<string, number>();
  private readonly wordCache = new Map<string, number[]>();
  private readonly table: Float32Array;
  private readonly columns: number;
  private readonly unknown: number;
  private readonly cls: number;
  private readonly sep: number;
  private readonly maxTokens: number;
  /** pooling "distinct": the text (a counter) in which each token was last added. */
  private readonly lastSeen: Uint32Array | undefined;
  private text = 0;

  /** The table it embeds with (shared: give it to another thread's embedder of the same model). */
  readonly embeddingTable: EmbeddingTable;

  constructor(
    private readonly model: ModelFolder,
    /** The model's table, read already (another thread's, shared): not read again. */
    table?: EmbeddingTable,
  ) {
    this.modelId = model.id;
    const tokenizer = JSON.parse(fs.readFileSync(path.join(model.dir, 'tokenizer.json'), 'utf8')) as {
      model: { type: string; vocab: Record<string, number>; unk_token: string };
    };
    if (tokenizer.model.type !== 'WordPiece') throw new Error(`${model.dir}: a static model needs a WordPiece tokenizer (found ${tokenizer.model.type})`);
    for (const [token, id] of Object.entries(tokenizer.model.vocab)) this.vocabulary.set(token, id);
    let maxLength = 512;
    try {
      maxLength = (JSON.parse(fs.readFileSync(path.join(model.dir, 'tokenizer_config.json'), 'utf8')) as { model_max_length?: number }).model_max_length ?? 512;
    } catch {
      // the default
    }
    this.maxTokens = maxLength;
    this.embeddingTable = table ?? readEmbeddingTable(staticModelFile(model));
    const { rows, columns, ops } = this.embeddingTable;
    checkPooling(model, ops);
    if (rows < this.vocabulary.size) throw new Error(`${model.dir}: ${rows} rows for ${this.vocabulary.size} tokens`);
    this.table = this.embeddingTable.table;
    this.columns = columns;
    this.unknown = this.vocabulary.get(tokenizer.model.unk_token) ?? 0;
    for (const token of ['[CLS]', '[SEP]', '[UNK]', '[PAD]', '[MASK]']) if (this.vocabulary.has(token)) this.specials.set(token, this.vocabulary.get(token)!);
    this.cls = this.vocabulary.get('[CLS]') ?? -1;
    this.sep = this.vocabulary.get('[SEP]') ?? -1;
    this.lastSeen = model.settings.pooling === 'distinct' ? new Uint32Array(rows) : undefined;
  }

  /** BERT's normalisation and pre-tokenisation: lower case, accents off, controls out, words split at spaces and punctuation. */
  private words(text: string): string[] {
    const out: string[] = [];
    let current = '';
    const flush = (): void => {
      if (current) out.push(current);
      current = '';
    };
    const lower = text.toLowerCase();
    // eslint-disable-next-line no-control-regex
    const ascii = /^[\x00-\x7f]*$/.test(lower);
    for (const raw of ascii ? lower : lower.normalize('NFD')) {
      const code = raw.codePointAt(0)!;
      if (code < 128) {
        const kind = asciiKinds[code]!;
        if (kind === spaceByte) flush();
        else if (kind === punctuationByte) {
          flush();
          out.push(raw);
        } else if (kind === wordByte) current += raw;
        continue;
      }
      if (code === 0xfffd || /\p{Cc}|\p{Cf}|\p{Co}|\p{Cs}/u.test(raw)) continue;
      if (/\p{Mn}/u.test(raw)) continue;
      if (/\p{Zs}/u.test(raw)) flush();
      else if (isPunctuation(raw) || isChinese(code)) {
        flush();
        out.push(raw);
      } else current += raw;
    }
    flush();
    return out;
  }

  /** The token ids of a text: special tokens written in it are matched first (as transformers.js' added tokens are), the rest is normalised and split. */
  private ids(text: string): number[] {
    const out: number[] = [];
    for (const part of text.includes('[') ? text.split(/(\[CLS\]|\[SEP\]|\[UNK\]|\[PAD\]|\[MASK\])/) : [text]) {
      const special = this.specials.get(part);
      if (special !== undefined) out.push(special);
      else if (part !== '') this.textIds(part, out);
      if (out.length > this.maxTokens) break;
    }
    return out;
  }

  /**
   * The ids of a text with no special token: plain ASCII through `asciiIds`; else a line at a
   * time (`byLine`), each line the same way, and a line that is not plain ASCII through `words`
   * then `pieces`. The same ids as the whole text through `words`: a newline ends a word in both
   * and makes no token, and neither lower-casing nor NFD looks across it. Most chunks are code with
   * one such line, their context header's "…" (71% of kernel chunks): the rest of the chunk is not
   * walked a character at a time for it.
   */
  private textIds(text: string, out: number[], byLine = true): void {
    const lower = text.toLowerCase();
    if (plainAscii.test(lower)) this.asciiIds(lower, out);
    else if (!byLine) for (const word of this.words(text)) for (const piece of this.pieces(word)) out.push(piece);
    else {
      for (let start = 0; out.length <= this.maxTokens;) {
        const newline = text.indexOf('\n', start);
        this.textIds(text.slice(start, newline < 0 ? text.length : newline), out, false);
        if (newline < 0) break;
        start = newline + 1;
      }
    }
  }

  /**
   * `words` then `pieces` for lower-case ASCII holding no control but tab, newline and return (most
   * code): the same ids, with one substring a word instead of a string grown a character at a time,
   * and no more than the model reads (`one` keeps the first `maxTokens`). 3x faster on C.
   */
  private asciiIds(lower: string, out: number[]): void {
    let start = -1;
    for (let at = 0; at < lower.length; at++) {
      const kind = asciiKinds[lower.charCodeAt(at)]!;
      if (kind === wordByte) {
        if (start < 0) start = at;
        continue;
      }
      if (start >= 0) {
        for (const piece of this.pieces(lower.slice(start, at))) out.push(piece);
        start = -1;
      }
      if (kind === punctuationByte) for (const piece of this.pieces(lower[at]!)) out.push(piece);
      if (out.length > this.maxTokens) return;
    }
    if (start >= 0) for (const piece of this.pieces(lower.slice(start))) out.push(piece);
  }

  private pieces(word: string): number[] {
    let found = this.wordCache.get(word);
    if (found) return found;
    found = [];
    if ([...word].length > 100) found.push(this.unknown);
    else {
      for (let start = 0; start < word.length;) {
        let end = word.length;
        let piece: number | undefined;
        while (start < end) {
          piece = this.vocabulary.get(start === 0 ? word.slice(start, end) : `##${word.slice(start, end)}`);
          if (piece !== undefined) break;
          end--;
        }
        if (piece === undefined) {
          found = [this.unknown];
          break;
        }
        found.push(piece);
        start = end;
      }
    }
    if (this.wordCache.size > 200_000) this.wordCache.clear();
    this.wordCache.set(word, found);
    return found;
  }

  private one(text: string): Float32Array {
    // As transformers.js: [CLS] + tokens + [SEP], cut to model_max_length (the cut drops [SEP]).
    const ids = [...(this.cls >= 0 ? [this.cls] : []), ...this.ids(text)];
    if (this.sep >= 0) ids.push(this.sep);
    if (ids.length > this.maxTokens) ids.length = this.maxTokens;
    const columns = this.columns;
    const table = this.table;
    // Four columns a step (the model's 384 are a multiple; the rest one by one), in float32 as the
    // ONNX graph adds: the same vectors as one a step, with `asciiIds` 1.7x faster on C.
    const sum = new Float32Array(columns);
    const seen = this.lastSeen;
    if (seen && ++this.text === 0xffffffff) {
      seen.fill(0);
      this.text = 1;
    }
    const stamp = this.text;
    const quads = columns - (columns % 4);
    for (let at = 0; at < ids.length; at++) {
      const id = ids[at]!;
      if (seen) {
        if (seen[id] === stamp) continue;
        seen[id] = stamp;
      }
      let offset = id * columns;
      let column = 0;
      for (; column < quads; column += 4, offset += 4) {
        sum[column]! += table[offset]!;
        sum[column + 1]! += table[offset + 1]!;
        sum[column + 2]! += table[offset + 2]!;
        sum[column + 3]! += table[offset + 3]!;
      }
      for (; column < columns; column++, offset++) sum[column]! += table[offset]!;
    }
    let norm = 0;
    for (let column = 0; column < columns; column++) norm += sum[column]! * sum[column]!;
    norm = Math.sqrt(norm) || 1;
    for (let column = 0; column < columns; column++) sum[column]! /= norm;
    return sum;
  }

  get dimensions(): number {
    return this.columns;
  }

  async embed(texts: string[], kind: 'query' | 'document'): Promise<Float32Array[]> {
    const prefix = (kind === 'query' ? this.model.settings.queryPrefix : this.model.settings.documentPrefix) ?? '';
    return texts.map((text) => this.one(prefix + text));
  }
}
