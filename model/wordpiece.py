#!/usr/bin/env python3
"""The tokenizer Fathom's code-search model runs at search time, re-implemented for training:
BERT normalisation (lower case, accents stripped), BERT pre-tokenisation (split on whitespace and
on every punctuation character), WordPiece (greedy longest match, `##` for continuations; a word
no pieces cover is [UNK]); and the vocabulary: the most frequent words plus their `##`
continuations and single characters, so a joined identifier (`parsecookie`, what `parseCookie`
becomes) splits into known pieces. src/index/semantic/static-embedder.ts is the TypeScript side.
"""
import collections
import unicodedata

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
