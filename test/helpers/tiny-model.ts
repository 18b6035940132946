// A small embedding model the tests build themselves, in transformers.js' layout, so the model
// loading path is tested offline: an ONNX graph written byte by byte (one Gather: token id → its
// row of an embedding table; the pipeline mean-pools and normalises), a WordPiece tokenizer over a
// small vocabulary, and a config. Words of one topic share a direction (plus a little of their
// own), so "pause" lands near code about retries although the code never says "pause". With
// settings { pooling: "distinct" } the graph also masks repeated tokens, as model/export.py's.
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './fixture.js';

/** Topics of the vocabulary: each word's vector points mostly along its topic's axis. */
export const tinyTopics: string[][] = [
  ['session', 'token', 'login', 'expire', 'expired', 'lifetime', 'issued', 'credential'],
  ['retry', 'retries', 'backoff', 'wait', 'waiting', 'attempts', 'failure', 'pause', 'sleep'],
  ['cache', 'evicted', 'capacity', 'entry', 'full', 'room', 'oldest', 'memory'],
  ['discount', 'tax', 'invoice', 'price', 'money', 'customer', 'loyalty', 'total'],
];

const special = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];
export const tinyDimensions = 8;

// A minimal protobuf writer: varints and length-delimited fields are all ONNX needs here.
function varint(value: number): Buffer {
  const out: number[] = [];
  let n = BigInt(value);
  while (n > 127n) {
    out.push(Number(n & 127n) | 128);
    n >>= 7n;
  }
  out.push(Number(n));
  return Buffer.from(out);
}
const tag = (field: number, wire: number): Buffer => varint((field << 3) | wire);
const int = (field: number, value: number): Buffer => Buffer.concat([tag(field, 0), varint(value)]);
const bytes = (field: number, value: Buffer | string): Buffer => {
  const data = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.concat([tag(field, 2), varint(data.length), data]);
};
const message = (field: number, parts: Buffer[]): Buffer => bytes(field, Buffer.concat(parts));
const dimension = (value: number | string): Buffer => message(1, [typeof value === 'number' ? int(1, value) : bytes(2, value)]);
/** ValueInfoProto { name, type: TypeProto { tensor_type { elem_type, shape } } }. */
const valueInfo = (field: number, name: string, elementType: number, shape: Array<number | string>): Buffer =>
  message(field, [bytes(1, name), message(2, [message(1, [int(1, elementType), message(2, shape.map(dimension))])])]);

/** Writes the model folder; answers its path. `settings` becomes fathom.json. */
export function buildTinyModel(settings?: Record<string, unknown>): string {
  const dir = tempDir('fathom-tiny-model-');
  const vocabulary = [...special, ...tinyTopics.flat()];
  const table = new Float32Array(vocabulary.length * tinyDimensions);
  vocabulary.forEach((word, index) => {
    const topic = tinyTopics.findIndex((words) => words.includes(word));
    if (topic < 0) return; // special tokens: zero vectors
    table[index * tinyDimensions + topic] = 1;
    table[index * tinyDimensions + 4 + (index % 4)] = 0.15; // a little of its own
  });
  const FLOAT = 1;
  const INT64 = 7;
  const initializer = message(5, [
    int(1, vocabulary.length),
    int(1, tinyDimensions),
    int(2, FLOAT),
    bytes(8, 'embeddings'),
    bytes(9, Buffer.from(table.buffer)),
  ]);
  // NodeProto { input…, output…, name, op_type, attribute… }; AttributeProto INT is type 2, INTS 7.
  const node = (op: string, inputs: string[], outputs: string[], ...attributes: Buffer[]): Buffer =>
    message(1, [
      ...inputs.map((input) => bytes(1, input)),
      ...outputs.map((output) => bytes(2, output)),
      bytes(3, `${op}_${outputs[0]}`),
      bytes(4, op),
      ...attributes,
    ]);
  const intAttribute = (name: string, value: number): Buffer => message(5, [bytes(1, name), int(3, value), int(20, 2)]);
  const constant = (name: string, type: number, raw: Buffer, dims: number[] = []): Buffer =>
    message(5, [...dims.map((dim) => int(1, dim)), int(2, type), bytes(8, name), bytes(9, raw)]);
  const int64 = (value: number): Buffer => {
    const raw = Buffer.alloc(8);
    raw.writeBigInt64LE(BigInt(value));
    return raw;
  };
  // "pooling": "distinct": as model/export.py writes it, a token seen earlier in the text gets a zero row.
  const distinct = settings?.pooling === 'distinct';
  const nodes = distinct
    ? [
        node('Gather', ['embeddings', 'input_ids'], ['rows']),
        node('Unsqueeze', ['input_ids', 'axis_2'], ['ids_column']),
        node('Unsqueeze', ['input_ids', 'axis_1'], ['ids_row']),
        node('Equal', ['ids_column', 'ids_row'], ['same']),
        node('Cast', ['same'], ['same_float'], intAttribute('to', FLOAT)),
        node('Trilu', ['same_float', 'below'], ['earlier'], intAttribute('upper', 0)),
        node('ReduceMax', ['earlier'], ['repeated'], message(5, [bytes(1, 'axes'), int(8, 2), int(20, 7)]), intAttribute('keepdims', 1)),
        node('Sub', ['one', 'repeated'], ['first_time']),
        node('Mul', ['rows', 'first_time'], ['last_hidden_state']),
      ]
    : [node('Gather', ['embeddings', 'input_ids'], ['last_hidden_state'])];
  const constants = distinct
    ? [
        constant('axis_1', INT64, int64(1), [1]),
        constant('axis_2', INT64, int64(2), [1]),
        constant('below', INT64, int64(-1)),
        constant('one', FLOAT, Buffer.from(new Float32Array([1]).buffer)),
      ]
    : [];
  const graph = message(7, [
    ...nodes,
    bytes(2, 'fathom-tiny'),
    initializer,
    ...constants,
    valueInfo(11, 'input_ids', INT64, ['batch', 'sequence']),
    valueInfo(11, 'attention_mask', INT64, ['batch', 'sequence']),
    valueInfo(12, 'last_hidden_state', FLOAT, ['batch', 'sequence', tinyDimensions]),
  ]);
  const model = Buffer.concat([int(1, 7), bytes(2, 'fathom-tests'), graph, message(8, [bytes(1, ''), int(2, distinct ? 14 : 13)])]);
  fs.mkdirSync(path.join(dir, 'onnx'));
  fs.writeFileSync(path.join(dir, 'onnx', 'model.onnx'), model);
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'bert', hidden_size: tinyDimensions }));
  fs.writeFileSync(
    path.join(dir, 'tokenizer.json'),
    JSON.stringify({
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: special.map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
      normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
      pre_tokenizer: { type: 'BertPreTokenizer' },
      post_processor: {
        type: 'TemplateProcessing',
        single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
        pair: [],
        special_tokens: { '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] } },
      },
      decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
      model: {
        type: 'WordPiece',
        unk_token: '[UNK]',
        continuing_subword_prefix: '##',
        max_input_chars_per_word: 100,
        vocab: Object.fromEntries(vocabulary.map((word, id) => [word, id])),
      },
    }),
  );
  fs.writeFileSync(
    path.join(dir, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: 512,
      unk_token: '[UNK]',
      pad_token: '[PAD]',
      cls_token: '[CLS]',
      sep_token: '[SEP]',
    }),
  );
  if (settings) fs.writeFileSync(path.join(dir, 'fathom.json'), JSON.stringify(settings));
  return dir;
}
