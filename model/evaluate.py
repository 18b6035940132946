#!/usr/bin/env python3
"""Scores a model on the retrieval evaluation as bench/retrieval/eval.ts does, from the data
bench/retrieval/dump.ts writes (chunks as embedded, the chunk ranking's answers with scores):
semantic-only (a test file's chunk 0.1 less similar, as the semantic index ranks) and hybrid
(codeSearch's fusion: (1-w)·lexical/best + w·min-max-scaled similarity over the 100 nearest chunks) file Recall@1, MRR@10 and chunk Recall@10 on the meaning-only
questions. Lets a training sweep see the end metric without Node; the numbers to report still
come from eval.ts.

Usage: python3 model/evaluate.py DUMP.json TRAINED_DIR   (model/train.py's output: table.npy,
vocab.json, training.json for the pooling)
       python3 model/evaluate.py DUMP.json VECTORS.json   (model/baselines.mjs's output)
"""
import json
import os
import re
import sys

import numpy as np

WEIGHTS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
# semantic-index.ts' defaultTestPenalty and chunk-ranking.ts' isTestPath.
TEST_PENALTY = 0.1
TEST_FOLDER = re.compile(r'(^|/)(tests?|__tests__|specs?|testing)/', re.IGNORECASE)
TEST_NAME = re.compile(r'(\.(test|spec)\.[^./]+|_test\.[^./]+|(^|/)test_[^/]*\.py|Tests?\.(java|kt|cs))$')


def is_test_path(path):
    return bool(TEST_FOLDER.search(path) or TEST_NAME.search(path))


def overlaps(hit, target):
    if hit['path'] != target['path']:
        return False
    overlap = min(hit['end'], target['end']) - max(hit['start'], target['start']) + 1
    return overlap > 0 and overlap >= 0.5 * min(hit['end'] - hit['start'] + 1, target['end'] - target['start'] + 1)


def scores(questions, answers):
    """file R@1, R@5, R@10, MRR@10 and chunk R@10 (hits use eval.ts' 1-based inclusive lines)."""
    r1 = r5 = r10 = mrr = chunk = 0.0
    for question in questions:
        hits = answers[question['id']]
        files = list(dict.fromkeys(hit['path'] for hit in hits))
        targets = question['targets']
        rank = next((index for index, file in enumerate(files) if any(target['path'] == file for target in targets)), -1)
        if rank == 0:
            r1 += 1
        if 0 <= rank < 5:
            r5 += 1
        if 0 <= rank < 10:
            r10 += 1
            mrr += 1 / (rank + 1)
        if any(overlaps(hit, target) for hit in hits[:10] for target in targets):
            chunk += 1
    n = max(1, len(questions))
    return {'r1': r1 / n, 'r5': r5 / n, 'r10': r10 / n, 'mrr10': mrr / n, 'chunkR10': chunk / n}


def one_based(hit):
    return {'path': hit['path'], 'start': hit['start'] + 1, 'end': hit['end'] + 1}


def fuse(lexical, near, weight, limit=50):
    """codeSearch's hybridRoute: lexical candidates, then each near hit joins the first overlapping one."""
    best = lexical[0]['score'] if lexical else 1
    sims = [similarity for _, similarity in near]
    low = min(sims + [1])
    high = max(sims + [low])
    scaled = lambda s: (s - low) / (high - low) if high > low else 0
    candidates = [{'path': chunk['path'], 'start': chunk['start'], 'end': chunk['end'], 'lexical': chunk['score'] / best, 'similarity': None} for chunk in lexical]
    for chunk, similarity in near:
        home = next((c for c in candidates if c['path'] == chunk['path'] and c['start'] <= chunk['end'] and chunk['start'] <= c['end']), None)
        if home is not None:
            home['similarity'] = max(-1 if home['similarity'] is None else home['similarity'], similarity)
        else:
            candidates.append({'path': chunk['path'], 'start': chunk['start'], 'end': chunk['end'], 'lexical': 0, 'similarity': similarity})
    ranked = sorted(candidates, key=lambda c: -((1 - weight) * c['lexical'] + weight * (0 if c['similarity'] is None else scaled(c['similarity']))))
    return ranked[:limit]


def evaluate(dump, embed, weights=WEIGHTS):
    """embed(texts, kind) -> normalised rows. Returns {'semantic': …, 'lexical': …, 'hybrid@w': …} on meaning-only questions."""
    questions = [q for q in dump['questions'] if q['kind'] == 'meaning']
    answers = {name: {} for name in ['semantic', 'lexical'] + [f'hybrid@{w}' for w in weights]}
    for corpus, data in dump['corpora'].items():
        asked = [q for q in questions if q['corpus'] == corpus]
        if not asked:
            continue
        chunks = data['chunks']
        documents = embed([chunk['text'] for chunk in chunks], 'document')
        queries = embed([q['question'] for q in asked], 'query')
        # semantic-index.ts: a test file's chunk counts TEST_PENALTY less similar.
        penalty = np.array([TEST_PENALTY if is_test_path(chunk['path']) else 0.0 for chunk in chunks], dtype=np.float32)
        similarity = queries @ documents.T - penalty[None, :]
        for row, question in enumerate(asked):
            order = np.argsort(-similarity[row], kind='stable')[:100]
            near = [(chunks[i], float(similarity[row, i])) for i in order]
            answers['semantic'][question['id']] = [one_based(chunk) for chunk, _ in near[:50]]
            lexical = data['lexical'][question['id']]
            answers['lexical'][question['id']] = [one_based(chunk) for chunk in lexical]
            for weight in weights:
                answers[f'hybrid@{weight}'][question['id']] = [one_based(hit) for hit in fuse(lexical, near, weight)]
    return {name: scores(questions, found) for name, found in answers.items()}


def table_embedder(table, vocab, pooling='sum', max_length=512):
    """The static embedder's vectors: [CLS] + WordPiece tokens + [SEP], cut to max_length, summed
    (each token once with pooling 'distinct'), normalised; [PAD], [CLS] and [SEP] are zero rows as
    model/export.py writes them."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from wordpiece import WordPiece
    tokeniser = WordPiece(vocab)
    table = table.copy()
    for token in ('[PAD]', '[CLS]', '[SEP]'):
        table[vocab[token]] = 0
    cls, sep = vocab['[CLS]'], vocab['[SEP]']

    def embed(texts, kind):
        rows = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
        for index, text in enumerate(texts):
            ids = ([cls] + tokeniser.encode(text, max_length) + [sep])[:max_length]
            rows[index] = table[np.unique(ids) if pooling == 'distinct' else ids].sum(axis=0)
        return rows / (np.linalg.norm(rows, axis=1, keepdims=True) + 1e-8)

    return embed


def precomputed_embedder(dump, chunk_vectors, question_vectors):
    """embed() over vectors given in the dump's order of chunks (corpus by corpus) and questions."""
    norm = lambda rows: rows / (np.linalg.norm(rows, axis=1, keepdims=True) + 1e-8)
    chunks, questions = norm(np.asarray(chunk_vectors, dtype=np.float32)), norm(np.asarray(question_vectors, dtype=np.float32))
    chunk_row, at = {}, 0
    for corpus in dump['corpora'].values():
        for chunk in corpus['chunks']:
            chunk_row.setdefault(chunk['text'], at)
            at += 1
    question_row = {question['question']: index for index, question in enumerate(dump['questions'])}
    return lambda texts, kind: chunks[[chunk_row[t] for t in texts]] if kind == 'document' else questions[[question_row[t] for t in texts]]


def vectors_embedder(dump, file):
    """Precomputed vectors (model/baselines.mjs)."""
    data = json.load(open(file))
    return precomputed_embedder(dump, data['chunks'], data['questions'])


def main():
    dump = json.load(open(sys.argv[1]))
    folder = sys.argv[2]
    if folder.endswith('.json'):
        result = evaluate(dump, vectors_embedder(dump, folder))
        for name, values in result.items():
            print(f"{name:12} R@1 {100 * values['r1']:5.1f}  R@5 {100 * values['r5']:5.1f}  R@10 {100 * values['r10']:5.1f}  MRR@10 {values['mrr10']:.3f}  chunk R@10 {100 * values['chunkR10']:5.1f}")
        return
    table = np.load(os.path.join(folder, 'table.npy')).astype(np.float32)
    tokens = json.load(open(os.path.join(folder, 'vocab.json')))
    config = json.load(open(os.path.join(folder, 'training.json'))).get('config', {}) if os.path.exists(os.path.join(folder, 'training.json')) else {}
    pooling = 'distinct' if config.get('pool') == 'unique' else 'sum'
    result = evaluate(dump, table_embedder(table, {token: index for index, token in enumerate(tokens)}, pooling))
    for name, values in result.items():
        print(f"{name:12} R@1 {100 * values['r1']:5.1f}  R@5 {100 * values['r5']:5.1f}  R@10 {100 * values['r10']:5.1f}  MRR@10 {values['mrr10']:.3f}  chunk R@10 {100 * values['chunkR10']:5.1f}")


if __name__ == '__main__':
    main()
