#!/usr/bin/env python3
"""Trains Fathom's code-search model with PyTorch, on a CPU (Debian's python3-torch) or a GPU: a
neural bag of words (the CodeSearchNet paper's NBoW baseline: one row per token; a text's vector
is the sum of its distinct tokens' rows, normalised), one table shared by questions and code,
trained with symmetric InfoNCE over in-batch negatives, token dropout, Adam with warm-up and
linear decay.

Tokens are prepared once (`prepare`: the vocabulary and every pair, plus the retrieval
evaluation's chunks and questions from bench/retrieval/dump.ts, tokenised exactly as the static
embedder does) into an .npz that a GPU machine can take along; `train` and `sweep` read it and
report the held-out pairs' MRR and, given the dump, the evaluation's scores (model/evaluate.py).

Usage:
  python3 model/train.py prepare DATA_DIR TOKENS.npz [--vocab 30000] [--eval DUMP.json]
  python3 model/train.py train TOKENS.npz OUT_DIR [--config JSON] [--eval DUMP.json]
  python3 model/train.py sweep TOKENS.npz RESULTS.json CONFIGS.json [--eval DUMP.json] [--shard I/N]
"""
import argparse
import gzip
import json
import math
import os
import random
import sys
import time
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wordpiece import WordPiece, build_vocab  # noqa: E402

MAX_LENGTH = 512


def read_json(path):
    """A JSON file, gzipped when its name ends in .gz."""
    with (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)) as handle:
        return json.load(handle)


def flatten(sequences, vocab_size):
    lengths = np.array([len(seq) for seq in sequences], dtype=np.int64)
    # Token ids fit 16 bits under 65,536 tokens: half the .npz to carry to a GPU machine.
    flat = np.fromiter((token for seq in sequences for token in seq), dtype=np.uint16 if vocab_size <= 65536 else np.int32, count=int(lengths.sum()))
    return flat, lengths


def prepare(args):
    load = lambda name: [json.loads(line) for line in open(os.path.join(args.data, name))]
    started = time.time()
    train, valid = load('train.jsonl'), load('valid.jsonl')
    vocab = build_vocab(train, args.vocab)
    tokeniser = WordPiece(vocab)
    arrays = {}
    for split, pairs in (('train', train), ('valid', valid)):
        texts = [tokeniser.encode(pair['text'], args.text_limit) for pair in pairs]
        codes = [tokeniser.encode(pair['code'], args.code_limit) for pair in pairs]
        keep = [i for i in range(len(pairs)) if texts[i] and codes[i]]
        for side, sequences in (('text', texts), ('code', codes)):
            flat, lengths = flatten([sequences[i] for i in keep], len(vocab))
            arrays[f'{split}_{side}'], arrays[f'{split}_{side}_len'] = flat, lengths
        arrays[f'{split}_source'] = np.array([zlib.crc32(pairs[i].get('source', '').encode()) for i in keep], dtype=np.int64)
        print(f'{split}: {len(keep)} pairs', flush=True)
    if args.eval:
        dump = read_json(args.eval)
        cls, sep = vocab['[CLS]'], vocab['[SEP]']
        full = lambda text: ([cls] + tokeniser.encode(text, MAX_LENGTH) + [sep])[:MAX_LENGTH]
        chunks = [full(chunk['text']) for data in dump['corpora'].values() for chunk in data['chunks']]
        questions = [full(question['question']) for question in dump['questions']]
        arrays['eval_chunk'], arrays['eval_chunk_len'] = flatten(chunks, len(vocab))
        arrays['eval_question'], arrays['eval_question_len'] = flatten(questions, len(vocab))
    arrays['vocab'] = np.array(json.dumps([token for token, _ in sorted(vocab.items(), key=lambda item: item[1])]))
    np.savez_compressed(args.tokens, **arrays)
    print(f'prepared in {time.time() - started:.0f} s', flush=True)


def split_lists(flat, lengths):
    flat = flat.astype(np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return [flat[s:s + n] for s, n in zip(starts, lengths)]


def load_tokens(path):
    data = np.load(path)
    out = {'vocab': json.loads(str(data['vocab']))}
    for split in ('train', 'valid'):
        out[split] = (split_lists(data[f'{split}_text'], data[f'{split}_text_len']), split_lists(data[f'{split}_code'], data[f'{split}_code_len']))
    if 'eval_chunk' in data:
        out['eval_chunk'] = split_lists(data['eval_chunk'], data['eval_chunk_len'])
        out['eval_question'] = split_lists(data['eval_question'], data['eval_question_len'])
    return out


def pool_unique(sequences):
    return [np.unique(seq) for seq in sequences]


class Batcher:
    """Sequences → (flat ids, offsets) tensors for EmbeddingBag, cached per list on the device."""

    def __init__(self, torch, device):
        self.torch, self.device = torch, device

    def bag(self, sequences, drop=0.0, rng=None):
        if drop > 0:
            # Token dropout: each token left out with probability `drop` (a text keeps one at least).
            dropped = []
            for seq in sequences:
                kept = seq[rng.random(len(seq)) >= drop]
                dropped.append(kept if len(kept) else seq[rng.integers(len(seq)):][:1])
            sequences = dropped
        flat = np.concatenate(sequences).astype(np.int64)
        offsets = np.concatenate(([0], np.cumsum([len(s) for s in sequences])[:-1])).astype(np.int64)
        return self.torch.from_numpy(flat).to(self.device), self.torch.from_numpy(offsets).to(self.device)


def hard_negatives(texts, codes, vocab_size, log=print, max_df=0.02, block=256, pool=65536, seed=7):
    """Per pair, the training code the lexical ranking puts first for its text among `pool` codes
    drawn at random (idf-weighted shared tokens over sqrt(code length), the tokens in more than
    `max_df` of the codes left out), skipping its own, copies of it and codes whose text is the
    same as this one's (none left among the first four: a code drawn at random). A pool, not every code: over every code mining took over 20 minutes on 2 busy cores,
    over the pool 3.5 minutes."""
    import scipy.sparse as sp
    started = time.time()
    n = len(texts)

    def matrix(sequences):
        indptr = np.concatenate(([0], np.cumsum([len(seq) for seq in sequences])))
        return sp.csr_matrix((np.ones(int(indptr[-1]), np.float32), np.concatenate(sequences), indptr), shape=(len(sequences), vocab_size))

    chosen = np.sort(np.random.default_rng(seed).choice(n, size=min(pool, n), replace=False))
    codes_matrix = matrix([np.unique(codes[i]) for i in chosen])
    frequency = np.bincount(codes_matrix.indices, minlength=vocab_size)
    size = len(chosen)
    weights = (np.log((size + 1) / (frequency + 1)) * (frequency <= max_df * size)).astype(np.float32)
    queries = matrix([np.unique(seq) for seq in texts]) @ sp.diags(weights)
    lengths = np.maximum(1, np.diff(codes_matrix.indptr)).astype(np.float32)
    columns = (sp.diags(1 / np.sqrt(lengths)) @ codes_matrix).T.tocsr()
    text_key = np.array([hash(np.unique(seq).tobytes()) for seq in texts])
    code_key = np.array([hash(np.unique(seq).tobytes()) for seq in codes])
    fallback = np.random.default_rng(seed + 1)
    out = np.empty(n, np.int64)
    for start in range(0, n, block):
        scores = (queries[start:start + block] @ columns).toarray()
        rows = np.arange(len(scores))
        top = np.argpartition(-scores, 3, axis=1)[:, :4]
        top = chosen[np.take_along_axis(top, np.argsort(-np.take_along_axis(scores, top, axis=1), axis=1), axis=1)]
        for row in rows:
            me = start + row
            # Not its own code, nor a copy of it (same tokens once cut), nor one documented alike.
            picked = next((int(j) for j in top[row] if j != me and code_key[j] != code_key[me] and text_key[j] != text_key[me]), None)
            while picked is None or picked == me:
                picked = int(fallback.integers(n))
            out[start + row] = picked
        if start // block % 200 == 0:
            log(f'  hard negatives: {start + len(scores)}/{n} ({time.time() - started:.0f} s)')
    return out


def train_one(torch, tokens, config, device, dump=None, log=print):
    """One run. config: dim, epochs, batch, lr, temperature (or 'learned'), pool ('sum'|'unique'),
    tables ('shared'|'split'), code_limit, text_limit, seed, wd, hard (a lexical hard negative per pair). Returns (tables, metrics)."""
    seed = config.get('seed', 7)
    torch.manual_seed(seed)
    rng = random.Random(seed)
    vocab_size = len(tokens['vocab'])
    pad = tokens['vocab'].index('[PAD]')
    dim = config.get('dim', 256)
    texts, codes = tokens['train']
    code_limit, text_limit = config.get('code_limit', 256), config.get('text_limit', 64)
    texts = [t[:text_limit] for t in texts]
    codes = [c[:code_limit] for c in codes]
    valid_texts, valid_codes = tokens['valid']
    if config.get('pool') == 'unique':
        texts, codes = pool_unique(texts), pool_unique(codes)
        valid_texts, valid_codes = pool_unique(valid_texts), pool_unique(valid_codes)
    nn = torch.nn
    make = lambda: nn.EmbeddingBag(vocab_size, dim, mode='sum')
    query_table = make().to(device)
    nn.init.normal_(query_table.weight, std=config.get('init', 0.1))
    code_table = make().to(device) if config.get('tables') == 'split' else query_table
    if code_table is not query_table:
        code_table.weight.data.copy_(query_table.weight.data)
    params = list({id(p): p for p in list(query_table.parameters()) + list(code_table.parameters())}.values())
    temperature = config.get('temperature', 0.07)
    log_scale = None
    if temperature == 'learned':
        log_scale = torch.tensor(math.log(1 / 0.07), device=device, requires_grad=True)
        params.append(log_scale)
    optimiser = torch.optim.Adam(params, lr=config.get('lr', 0.003), weight_decay=config.get('wd', 0.0))
    batcher = Batcher(torch, device)
    batch = config.get('batch', 1024)
    order = list(range(len(texts)))
    steps_total = config.get('epochs', 10) * (len(order) // batch)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda step: min(1.0, (step + 1) / 100) * max(0.05, 1 - step / max(1, steps_total))) if config.get('schedule', 'linear') == 'linear' else None
    F = torch.nn.functional

    drop_rng = np.random.default_rng(seed)

    def encode(table, sequences, drop=0.0):
        flat, offsets = batcher.bag(sequences, drop, drop_rng)
        return F.normalize(table(flat, offsets), dim=1)

    def valid_mrr():
        with torch.no_grad():
            n = min(1000, len(valid_texts))
            picked = random.Random(1).sample(range(len(valid_texts)), n)
            q = encode(query_table, [valid_texts[i] for i in picked])
            c = encode(code_table, [valid_codes[i] for i in picked])
            s = q @ c.T
            ranks = (s > s.diag()[:, None]).sum(dim=1).float()
            return float((1 / (ranks + 1)).mean())

    hard = hard_negatives(texts, codes, vocab_size, log, seed=seed) if config.get('hard') else None
    started = time.time()
    for epoch in range(config.get('epochs', 10)):
        rng.shuffle(order)
        losses = []
        for at in range(0, len(order) - batch + 1, batch):
            chosen = order[at:at + batch]
            q = encode(query_table, [texts[i] for i in chosen], config.get('drop', 0.0))
            extra = [int(hard[i]) for i in chosen] if hard is not None else []
            c = encode(code_table, [codes[i] for i in chosen + extra], config.get('drop', 0.0))
            scale = log_scale.exp().clamp(max=100) if log_scale is not None else 1 / temperature
            logits = (q @ c.T) * scale
            labels = torch.arange(len(chosen), device=device)
            if extra:
                # A hard negative that is another row's own code is not a negative for that row.
                same = torch.tensor(extra, device=device)[None, :] == torch.tensor(chosen, device=device)[:, None]
                logits = torch.cat([logits[:, :len(chosen)], logits[:, len(chosen):].masked_fill(same, float('-inf'))], dim=1)
            loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits[:, :len(chosen)].T, labels)) / 2
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            if scheduler:
                scheduler.step()
            with torch.no_grad():
                query_table.weight[pad].zero_()
                code_table.weight[pad].zero_()
            losses.append(float(loss))
        log(f'  epoch {epoch + 1}: loss {np.mean(losses):.3f} valid MRR {valid_mrr():.3f} ({time.time() - started:.0f} s)')
    metrics = {'validMrr': valid_mrr(), 'seconds': round(time.time() - started, 1)}
    if log_scale is not None:
        metrics['temperature'] = float(1 / log_scale.exp())
    q_table = query_table.weight.detach().float().cpu().numpy()
    c_table = code_table.weight.detach().float().cpu().numpy()
    if dump is not None and 'eval_chunk' in tokens:
        metrics['eval'] = eval_tables(tokens, dump, q_table, c_table, config.get('pool') == 'unique')
    return (q_table, c_table), metrics


def eval_tables(tokens, dump, q_table, c_table, unique):
    from evaluate import evaluate, precomputed_embedder
    # As model/export.py writes them: [PAD], [CLS] and [SEP] are zero rows.
    q_table, c_table = q_table.copy(), c_table.copy()
    for token in ('[PAD]', '[CLS]', '[SEP]'):
        q_table[tokens['vocab'].index(token)] = 0
        c_table[tokens['vocab'].index(token)] = 0
    chunk_ids, question_ids = tokens['eval_chunk'], tokens['eval_question']
    if unique:
        chunk_ids, question_ids = pool_unique(chunk_ids), pool_unique(question_ids)
    chunk_vectors = np.stack([c_table[ids].sum(axis=0) for ids in chunk_ids])
    question_vectors = np.stack([q_table[ids].sum(axis=0) for ids in question_ids])
    embed = precomputed_embedder(dump, chunk_vectors, question_vectors)
    result = evaluate(dump, embed)
    return {name: {key: round(value, 4) for key, value in values.items()} for name, values in result.items()}


def summary_line(metrics):
    e = metrics.get('eval')
    if not e:
        return f"valid MRR {metrics['validMrr']:.3f}"
    best = max((name for name in e if name.startswith('hybrid')), key=lambda name: (e[name]['mrr10'], e[name]['r1']))
    return f"valid MRR {metrics['validMrr']:.3f} | semantic R@1 {100 * e['semantic']['r1']:.1f} MRR {e['semantic']['mrr10']:.3f} | {best} R@1 {100 * e[best]['r1']:.1f} MRR {e[best]['mrr10']:.3f}"


def save(out, tokens, tables, config, metrics):
    os.makedirs(out, exist_ok=True)
    q_table, c_table = tables
    np.save(os.path.join(out, 'table.npy'), q_table)
    if c_table is not q_table and not np.array_equal(q_table, c_table):
        np.save(os.path.join(out, 'code_table.npy'), c_table)
    with open(os.path.join(out, 'vocab.json'), 'w') as handle:
        json.dump(tokens['vocab'], handle)
    with open(os.path.join(out, 'training.json'), 'w') as handle:
        json.dump({'config': config, **metrics}, handle, indent=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('command', choices=['prepare', 'train', 'sweep'])
    parser.add_argument('first')
    parser.add_argument('second')
    parser.add_argument('third', nargs='?')
    parser.add_argument('--vocab', type=int, default=30000)
    parser.add_argument('--text-limit', type=int, default=64)
    parser.add_argument('--code-limit', type=int, default=256)
    parser.add_argument('--eval')
    parser.add_argument('--config', default='{}', help='JSON: the settings of train_one')
    parser.add_argument('--device', default='auto')
    parser.add_argument('--shard', default='0/1', help='I/N: this process runs configs I, I+N, …')
    args = parser.parse_args()
    if args.command == 'prepare':
        args.data, args.tokens = args.first, args.second
        return prepare(args)
    import torch
    device = ('cuda' if torch.cuda.is_available() else 'cpu') if args.device == 'auto' else args.device
    torch.set_num_threads(int(os.environ.get('FATHOM_THREADS', os.cpu_count() or 1)))
    tokens = load_tokens(args.first)
    dump = read_json(args.eval) if args.eval else None
    if args.command == 'train':
        config = json.loads(args.config)
        tables, metrics = train_one(torch, tokens, config, device, dump)
        print(summary_line(metrics), flush=True)
        save(args.second, tokens, tables, config, metrics)
        return
    configs = json.load(open(args.third))
    shard, shards = (int(part) for part in args.shard.split('/'))
    results = []
    for index, config in enumerate(configs):
        if index % shards != shard:
            continue
        print(f'[{index + 1}/{len(configs)}] {json.dumps(config)}', flush=True)
        try:
            _, metrics = train_one(torch, tokens, config, device, dump, log=lambda line: print(line, flush=True))
        except Exception as error:  # one bad setting must not lose the sweep
            metrics = {'error': repr(error)}
            print(f'  failed: {error!r}', flush=True)
        results.append({'index': index, 'config': config, **metrics})
        if 'error' not in metrics:
            print(f'  => {summary_line(metrics)}', flush=True)
        with open(args.second, 'w') as handle:
            json.dump(results, handle, indent=1)


if __name__ == '__main__':
    main()
