#!/usr/bin/env python3
"""Writes a trained table (model/train.py) as a model folder in transformers.js' layout: an ONNX
graph that maps each token id to its row (Gather over a float16 table, then Cast to float32;
with --pooling distinct, then a mask that zeroes the rows of tokens seen earlier in the same
text: transformers.js mean-pools and normalises), a WordPiece tokenizer.json with BERT
normalisation and pre-tokenisation (what model/wordpiece.py re-implements), config.json,
tokenizer_config.json, and Fathom's fathom.json ("static", "pooling"). The ONNX protobuf is
written field by field: nothing beyond numpy is needed.

Usage: python3 model/export.py TRAINED_DIR MODEL_DIR [--max-tokens 512] [--pooling sum|distinct]
"""
import argparse
import json
import os

import numpy as np


def varint(value):
    out = bytearray()
    while value > 127:
        out.append((value & 127) | 128)
        value >>= 7
    out.append(value)
    return bytes(out)


def tag(field, wire):
    return varint((field << 3) | wire)


def integer(field, value):
    return tag(field, 0) + varint(value)


def blob(field, data):
    data = data.encode() if isinstance(data, str) else data
    return tag(field, 2) + varint(len(data)) + data


def message(field, parts):
    return blob(field, b''.join(parts))


def dimension(value):
    return message(1, [integer(1, value) if isinstance(value, int) else blob(2, value)])


def value_info(field, name, element_type, shape):
    return message(field, [blob(1, name), message(2, [message(1, [integer(1, element_type), message(2, [dimension(d) for d in shape])])])])


FLOAT, INT64, FLOAT16 = 1, 7, 10


def node(op, inputs, outputs, name, attributes=()):
    return message(1, [*(blob(1, i) for i in inputs), *(blob(2, o) for o in outputs), blob(3, name), blob(4, op), *attributes])


def int_attribute(name, value):
    return message(5, [blob(1, name), integer(3, value), integer(20, 2)])


def ints_attribute(name, values):
    return message(5, [blob(1, name), *(integer(8, v) for v in values), integer(20, 7)])


def constant(name, array, element_type):
    return message(5, [*(integer(1, d) for d in array.shape), integer(2, element_type), blob(8, name), blob(9, array.tobytes())])


def onnx_model(table, pooling='sum'):
    """The graph: each token's row. With pooling 'distinct', a token already seen earlier in the
    same text gives a zero row (its mean over the text, normalised, is then the normalised sum of
    the distinct tokens' rows: what the static embedder computes)."""
    rows, dim = table.shape
    half = table.astype(np.float16)
    initializers = [message(5, [integer(1, rows), integer(1, dim), integer(2, FLOAT16), blob(8, 'embeddings'), blob(9, half.tobytes())])]
    nodes = [node('Gather', ['embeddings', 'input_ids'], ['rows'], 'lookup')]
    if pooling == 'sum':
        nodes.append(node('Cast', ['rows'], ['last_hidden_state'], 'to_float', [int_attribute('to', FLOAT)]))
    else:
        initializers += [constant('axis_1', np.array([1], dtype=np.int64), INT64), constant('axis_2', np.array([2], dtype=np.int64), INT64),
                         constant('below', np.array(-1, dtype=np.int64), INT64), constant('one', np.array(1, dtype=np.float32), FLOAT)]
        nodes += [
            node('Cast', ['rows'], ['rows_float'], 'to_float', [int_attribute('to', FLOAT)]),
            node('Unsqueeze', ['input_ids', 'axis_2'], ['ids_column'], 'as_column'),
            node('Unsqueeze', ['input_ids', 'axis_1'], ['ids_row'], 'as_row'),
            node('Equal', ['ids_column', 'ids_row'], ['same'], 'same_token'),  # same[b, i, j]: token i is token j
            node('Cast', ['same'], ['same_float'], 'same_to_float', [int_attribute('to', FLOAT)]),
            node('Trilu', ['same_float', 'below'], ['earlier'], 'only_earlier', [int_attribute('upper', 0)]),  # j < i
            node('ReduceMax', ['earlier'], ['repeated'], 'seen_before', [ints_attribute('axes', [2]), int_attribute('keepdims', 1)]),
            node('Sub', ['one', 'repeated'], ['first_time'], 'first_time'),
            node('Mul', ['rows_float', 'first_time'], ['last_hidden_state'], 'drop_repeats'),
        ]
    graph = message(7, [*nodes, blob(2, 'fathom-code-nbow'), *initializers,
                        value_info(11, 'input_ids', INT64, ['batch', 'sequence']),
                        value_info(11, 'attention_mask', INT64, ['batch', 'sequence']),
                        value_info(12, 'last_hidden_state', FLOAT, ['batch', 'sequence', dim])])
    return integer(1, 7) + blob(2, 'fathom/model/export.py') + graph + message(8, [blob(1, ''), integer(2, 14 if pooling != 'sum' else 13)])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('trained')
    parser.add_argument('out')
    parser.add_argument('--max-tokens', type=int, default=512)
    parser.add_argument('--pooling', choices=['sum', 'distinct'], default='sum', help="distinct: each token counts once per text")
    args = parser.parse_args()
    if os.path.exists(os.path.join(args.trained, 'code_table.npy')):
        raise SystemExit(f'{args.trained} has separate question and code tables: the export format holds one table')
    table = np.load(os.path.join(args.trained, 'table.npy'))
    vocab = json.load(open(os.path.join(args.trained, 'vocab.json')))
    # [PAD], [CLS] and [SEP] were never trained: zero rows, so the tokens transformers.js adds count for nothing.
    for token in ('[PAD]', '[CLS]', '[SEP]'):
        table[vocab.index(token)] = 0
    os.makedirs(os.path.join(args.out, 'onnx'), exist_ok=True)
    with open(os.path.join(args.out, 'onnx', 'model.onnx'), 'wb') as handle:
        handle.write(onnx_model(table, args.pooling))
    special = ['[PAD]', '[UNK]', '[CLS]', '[SEP]']
    tokenizer = {
        'version': '1.0', 'truncation': None, 'padding': None,
        'added_tokens': [{'id': vocab.index(t), 'content': t, 'single_word': False, 'lstrip': False, 'rstrip': False, 'normalized': False, 'special': True} for t in special],
        'normalizer': {'type': 'BertNormalizer', 'clean_text': True, 'handle_chinese_chars': True, 'strip_accents': None, 'lowercase': True},
        'pre_tokenizer': {'type': 'BertPreTokenizer'},
        'post_processor': {'type': 'TemplateProcessing',
                           'single': [{'SpecialToken': {'id': '[CLS]', 'type_id': 0}}, {'Sequence': {'id': 'A', 'type_id': 0}}, {'SpecialToken': {'id': '[SEP]', 'type_id': 0}}],
                           'pair': [],
                           'special_tokens': {t: {'id': t, 'ids': [vocab.index(t)], 'tokens': [t]} for t in ('[CLS]', '[SEP]')}},
        'decoder': {'type': 'WordPiece', 'prefix': '##', 'cleanup': True},
        'model': {'type': 'WordPiece', 'unk_token': '[UNK]', 'continuing_subword_prefix': '##', 'max_input_chars_per_word': 100, 'vocab': {token: index for index, token in enumerate(vocab)}},
    }
    with open(os.path.join(args.out, 'tokenizer.json'), 'w') as handle:
        json.dump(tokenizer, handle, ensure_ascii=False)
    with open(os.path.join(args.out, 'tokenizer_config.json'), 'w') as handle:
        json.dump({'tokenizer_class': 'BertTokenizer', 'do_lower_case': True, 'model_max_length': args.max_tokens, 'unk_token': '[UNK]', 'pad_token': '[PAD]', 'cls_token': '[CLS]', 'sep_token': '[SEP]'}, handle)
    with open(os.path.join(args.out, 'config.json'), 'w') as handle:
        json.dump({'model_type': 'bert', 'hidden_size': int(table.shape[1]), 'vocab_size': int(table.shape[0]), 'fathom': 'neural bag of words, model/train.py'}, handle)
    settings_file = os.path.join(args.out, 'fathom.json')
    settings = json.load(open(settings_file)) if os.path.exists(settings_file) else {}
    settings['static'] = True
    if args.pooling == 'sum':
        settings.pop('pooling', None)
    else:
        settings['pooling'] = args.pooling
    with open(settings_file, 'w') as handle:
        json.dump(settings, handle, indent=1)
    print(f'{args.out}: {table.shape[0]} tokens x {table.shape[1]} dims, {os.path.getsize(os.path.join(args.out, "onnx", "model.onnx")) / 1e6:.1f} MB')


if __name__ == '__main__':
    main()
