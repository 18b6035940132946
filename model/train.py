#!/usr/bin/env python3
"""Trains Fathom's code-search model: a neural bag of words (the CodeSearchNet paper's NBoW
baseline) with one shared token table for questions and code, trained contrastively with in-batch
negatives (symmetric InfoNCE) on the pairs model/mine.py writes. numpy only, on CPU.

The tokenizer is the one transformers.js runs at search time, re-implemented here so training sees
the same tokens: BERT normalisation (lower case, accents stripped), BERT pre-tokenisation (split
on whitespace and on every punctuation character), WordPiece (greedy longest match, `##` for
continuations; a word no pieces cover is [UNK]). The vocabulary is the most frequent words plus
their `##` continuations and single characters, so a joined identifier (`parsecookie`, what
`parseCookie` becomes) splits into known pieces.

A text's vector is the sum of its tokens' rows, normalised: what transformers.js' mean pooling and
normalisation compute from a model whose output is the row of each token (model/export.py).

Usage: python3 model/train.py DATA_DIR OUT_DIR [--dim 128] [--vocab 30000] [--epochs 3]
"""
import argparse
import collections
import json
import math
import os
import random
import time
import unicodedata

import numpy as np

SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]']


def is_punctuation(char):
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith('P')


def normalise(text):
    text = ''.join(' ' if ch in '\t\n\r' else ch for ch in text if not (ord(ch) == 0 or ord(ch) == 0xFFFD or unicodedata.category(ch) in ('Cc', 'Cf')) or ch in '\t\n\r')
    text = unicodedata.normalize('NFD', text.lower())
    return ''.join(ch for ch in text if unicodedata.category(ch) != 'Mn')


def pre_tokenise(text):
    words, current = [], []
    for ch in normalise(text):
        if ch.isspace():
            if current:
                words.append(''.join(current))
                current = []
        elif is_punctuation(ch):
            if current:
                words.append(''.join(current))
                current = []
            words.append(ch)
        else:
            current.append(ch)
    if current:
        words.append(''.join(current))
    return words


class WordPiece:
    def __init__(self, vocab):
        self.vocab = vocab
        self.cache = {}

    def word(self, word):
        found = self.cache.get(word)
        if found is not None:
            return found
        if len(word) > 100:
            pieces = [self.vocab['[UNK]']]
        else:
            pieces, start = [], 0
            while start < len(word):
                end, piece = len(word), None
                while start < end:
                    candidate = word[start:end] if start == 0 else '##' + word[start:end]
                    if candidate in self.vocab:
                        piece = self.vocab[candidate]
                        break
                    end -= 1
                if piece is None:
                    pieces = [self.vocab['[UNK]']]
                    break
                pieces.append(piece)
                start = end
        if len(self.cache) < 500000:
            self.cache[word] = pieces
        return pieces

    def encode(self, text, limit):
        ids = []
        for word in pre_tokenise(text):
            ids.extend(self.word(word))
            if len(ids) >= limit:
                break
        return ids[:limit]


def build_vocab(pairs, size):
    counts = collections.Counter()
    for pair in pairs:
        counts.update(pre_tokenise(pair['text']))
        counts.update(pre_tokenise(pair['code'][:1500]))
    chars = sorted({ch for word in counts for ch in word if not ch.isspace()})
    words = [word for word, _ in counts.most_common() if len(word) <= 30]
    vocab = list(SPECIAL)
    seen = set(vocab)
    def add(token):
        if token not in seen:
            seen.add(token)
            vocab.append(token)
    for ch in chars:
        add(ch)
        add('##' + ch)
    continuations = 0
    for word in words:
        if len(vocab) >= size:
            break
        add(word)
        if continuations < size // 4 and word.isalnum() and len(word) >= 3:
            add('##' + word)
            continuations += 1
    return {token: index for index, token in enumerate(vocab)}


def encode_all(tokeniser, pairs, text_limit, code_limit):
    return [(tokeniser.encode(pair['text'], text_limit), tokeniser.encode(pair['code'], code_limit)) for pair in pairs]


def pool(table, sequences):
    """Sum of rows per sequence, and the flat ids with their sequence index (for the backward pass)."""
    lengths = np.array([max(1, len(seq)) for seq in sequences])
    flat = np.fromiter((token for seq in sequences for token in (seq or [0])), dtype=np.int64, count=int(lengths.sum()))
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    sums = np.add.reduceat(table[flat], starts, axis=0)
    owners = np.repeat(np.arange(len(sequences)), lengths)
    return sums, flat, owners


def normalised(matrix):
    norms = np.linalg.norm(matrix, axis=1, keepdims=True) + 1e-8
    return matrix / norms, norms


def scatter_rows(flat, owners, grad_pooled):
    """Row gradients of the table: each token's sequence gradient, summed per distinct token."""
    grads = grad_pooled[owners]
    order = np.argsort(flat, kind='stable')
    ids = flat[order]
    unique, starts = np.unique(ids, return_index=True)
    return unique, np.add.reduceat(grads[order], starts, axis=0)


def mrr(table, encoded, sample=1000, seed=1):
    rng = random.Random(seed)
    chosen = rng.sample(encoded, min(sample, len(encoded)))
    queries, _, _ = pool(table, [text for text, _ in chosen])
    codes, _, _ = pool(table, [code for _, code in chosen])
    q, _ = normalised(queries)
    c, _ = normalised(codes)
    scores = q @ c.T
    ranks = (scores > np.diag(scores)[:, None]).sum(axis=1)
    return float(np.mean(1.0 / (ranks + 1)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('data')
    parser.add_argument('out')
    parser.add_argument('--dim', type=int, default=128)
    parser.add_argument('--vocab', type=int, default=30000)
    parser.add_argument('--epochs', type=int, default=3)
    parser.add_argument('--batch', type=int, default=128)
    parser.add_argument('--lr', type=float, default=0.01)
    parser.add_argument('--temperature', type=float, default=0.05)
    parser.add_argument('--text-limit', type=int, default=64)
    parser.add_argument('--code-limit', type=int, default=256)
    parser.add_argument('--seed', type=int, default=7)
    args = parser.parse_args()
    random.seed(args.seed)
    rng = np.random.default_rng(args.seed)
    load = lambda name: [json.loads(line) for line in open(os.path.join(args.data, name))]
    train, valid = load('train.jsonl'), load('valid.jsonl')
    started = time.time()
    vocab = build_vocab(train, args.vocab)
    tokeniser = WordPiece(vocab)
    train_encoded = encode_all(tokeniser, train, args.text_limit, args.code_limit)
    valid_encoded = encode_all(tokeniser, valid, args.text_limit, args.code_limit)
    print(f'{len(train)} training pairs, {len(valid)} validation pairs, vocabulary {len(vocab)}, tokenised in {time.time() - started:.0f} s', flush=True)
    table = (rng.standard_normal((len(vocab), args.dim)) * 0.1).astype(np.float32)
    table[vocab['[PAD]']] = 0
    first, second = np.zeros_like(table), np.zeros_like(table)
    beta1, beta2, step = 0.9, 0.999, 0
    print(f'before training: validation MRR {mrr(table, valid_encoded):.3f}', flush=True)
    for epoch in range(args.epochs):
        random.shuffle(train_encoded)
        losses = []
        for at in range(0, len(train_encoded) - args.batch + 1, args.batch):
            batch = train_encoded[at:at + args.batch]
            q_sum, q_flat, q_owner = pool(table, [text for text, _ in batch])
            c_sum, c_flat, c_owner = pool(table, [code for _, code in batch])
            q, q_norm = normalised(q_sum)
            c, c_norm = normalised(c_sum)
            logits = (q @ c.T) / args.temperature
            # Symmetric InfoNCE: each question against every code of the batch, and each code against every question.
            p_rows = np.exp(logits - logits.max(axis=1, keepdims=True))
            p_rows /= p_rows.sum(axis=1, keepdims=True)
            p_cols = np.exp(logits - logits.max(axis=0, keepdims=True))
            p_cols /= p_cols.sum(axis=0, keepdims=True)
            n = len(batch)
            loss = -(np.log(np.diag(p_rows) + 1e-9).mean() + np.log(np.diag(p_cols) + 1e-9).mean()) / 2
            losses.append(loss)
            eye = np.eye(n, dtype=np.float32)
            grad_logits = ((p_rows - eye) + (p_cols - eye)) / (2 * n) / args.temperature
            grad_q = grad_logits @ c
            grad_c = grad_logits.T @ q
            # Through the normalisation: d(x/|x|) = (g - (g·u) u) / |x|.
            grad_q_sum = (grad_q - (grad_q * q).sum(axis=1, keepdims=True) * q) / q_norm
            grad_c_sum = (grad_c - (grad_c * c).sum(axis=1, keepdims=True) * c) / c_norm
            rows_q, grads_q = scatter_rows(q_flat, q_owner, grad_q_sum.astype(np.float32))
            rows_c, grads_c = scatter_rows(c_flat, c_owner, grad_c_sum.astype(np.float32))
            rows = np.concatenate((rows_q, rows_c))
            grads = np.concatenate((grads_q, grads_c))
            order = np.argsort(rows, kind='stable')
            unique, starts = np.unique(rows[order], return_index=True)
            grads = np.add.reduceat(grads[order], starts, axis=0)
            # Adam on the touched rows only (lazy).
            step += 1
            first[unique] = beta1 * first[unique] + (1 - beta1) * grads
            second[unique] = beta2 * second[unique] + (1 - beta2) * grads * grads
            corrected = args.lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
            table[unique] -= corrected * first[unique] / (np.sqrt(second[unique]) + 1e-8)
            table[vocab['[PAD]']] = 0
            if (at // args.batch) % 200 == 0:
                print(f'epoch {epoch + 1} batch {at // args.batch}: loss {np.mean(losses[-200:]):.3f} ({time.time() - started:.0f} s)', flush=True)
        print(f'epoch {epoch + 1}: loss {np.mean(losses):.3f}, validation MRR {mrr(table, valid_encoded):.3f} ({time.time() - started:.0f} s)', flush=True)
    os.makedirs(args.out, exist_ok=True)
    np.save(os.path.join(args.out, 'table.npy'), table)
    with open(os.path.join(args.out, 'vocab.json'), 'w') as handle:
        json.dump([token for token, _ in sorted(vocab.items(), key=lambda item: item[1])], handle)
    with open(os.path.join(args.out, 'training.json'), 'w') as handle:
        json.dump({'args': vars(args), 'trainPairs': len(train), 'validPairs': len(valid), 'vocabulary': len(vocab), 'validMrr': mrr(table, valid_encoded), 'seconds': round(time.time() - started)}, handle, indent=1)


if __name__ == '__main__':
    main()
