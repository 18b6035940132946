#!/usr/bin/env python3
"""Mines training questions for the learned hybrid fusion (bench/retrieval/fusion-train.ts).

From code the model never trained on (model/mine.py holds these packages out for validation:
click, requests and networkx from Debian's python3-* packages, and pocl's C from pocl-source), it
writes a copy of each codebase with its documentation taken out, and questions in the retrieval
evaluation's format whose text is that documentation: a function's or class's docstring (Python),
the comment block right above a function definition (C), first paragraph only, and whose target
is the definition's lines. Without the documentation in the copy, a question's words can only be
found where a user's would: in names, code and other comments (C: every comment is blanked, as the
doc block is one of them). Line numbers are kept (a blanked docstring leaves empty lines, `pass`
where it was a body's only statement), so targets point at the copy.

Usage: python3 bench/retrieval/fusion-mine.py OUT_DIR [--per-corpus N]
  needs: apt-get install python3-click python3-requests python3-networkx pocl-source
  writes OUT_DIR/<corpus>/… and OUT_DIR/questions/<corpus>.json
"""
import argparse
import ast
import json
import os
import random
import re
import shutil
import tarfile

DIST = '/usr/lib/python3/dist-packages'
PYTHON = ['click', 'requests', 'networkx']
C_TARBALL = '/usr/src/pocl.tar.xz'
LICENCE = re.compile(r'copyright|licen[cs]e|permission is hereby|warranty|SPDX', re.I)


def first_paragraph(text):
    """The text's first paragraph as one line, markup and argument lists dropped; None if too short."""
    lines = []
    for line in text.strip().splitlines():
        line = line.strip().lstrip('*').strip()
        if not line:
            if lines:
                break
            continue
        if re.match(r'^(:param|:return|@param|@return|Args:|Returns:|Parameters|Example|>>>)', line):
            break
        lines.append(line)
    sentence = ' '.join(lines)
    sentence = re.sub(r'[`*]+|:(func|class|meth|attr|data|exc|ref):', '', sentence)
    sentence = re.sub(r'\s+', ' ', sentence).strip()
    words = re.findall(r'[A-Za-z]{2,}', sentence)
    if len(words) < 4 or LICENCE.search(sentence):
        return None
    return sentence[:300]


def python_corpus(name, out):
    """Copies a package without its docstrings; answers (question, path, start, end) per documented definition."""
    source = os.path.join(DIST, name)
    found = []
    for folder, dirs, files in os.walk(source):
        dirs[:] = sorted(d for d in dirs if d != '__pycache__' and d != 'tests')
        for file in sorted(files):
            if not file.endswith('.py'):
                continue
            path = os.path.join(folder, file)
            relative = os.path.relpath(path, source)
            text = open(path, encoding='utf-8', errors='replace').read()
            try:
                tree = ast.parse(text)
            except SyntaxError:
                continue
            lines = text.split('\n')
            for node in ast.walk(tree):
                if not isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    continue
                body = node.body
                if not body or not isinstance(body[0], ast.Expr) or not isinstance(getattr(body[0], 'value', None), ast.Constant):
                    continue
                if not isinstance(body[0].value.value, str):
                    continue
                doc = body[0]
                if not isinstance(node, ast.Module):
                    question = first_paragraph(body[0].value.value)
                    if question:
                        found.append((question, relative, node.lineno, node.end_lineno))
                indent = lines[doc.lineno - 1][: len(lines[doc.lineno - 1]) - len(lines[doc.lineno - 1].lstrip())]
                for line in range(doc.lineno - 1, doc.end_lineno):
                    lines[line] = ''
                if len(body) == 1 and not isinstance(node, ast.Module):
                    lines[doc.lineno - 1] = indent + 'pass'
            target = os.path.join(out, relative)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            open(target, 'w', encoding='utf-8').write('\n'.join(lines))
    return found


def blank_c_comments(text):
    """The text with every comment's characters replaced by spaces (newlines kept); strings and character literals skipped."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            i = j + 1
        elif text.startswith('/*', i):
            end = text.find('*/', i + 2)
            end = n if end < 0 else end + 2
            for k in range(i, end):
                if out[k] != '\n':
                    out[k] = ' '
            i = end
        elif text.startswith('//', i):
            end = text.find('\n', i)
            end = n if end < 0 else end
            for k in range(i, end):
                out[k] = ' '
            i = end
        else:
            i += 1
    return ''.join(out)


DEFINITION = re.compile(r'^[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\(')


def c_definitions(text, blanked):
    """(question, start line, end line) for each function defined right below a comment block (1-based lines)."""
    lines = text.split('\n')
    code = blanked.split('\n')
    found = []
    for match in re.finditer(r'/\*(.*?)\*/', text, re.S):
        end_line = text.count('\n', 0, match.end())
        start = end_line + 1
        while start < len(code) and code[start].strip() == '':
            start += 1
        # The signature may start with its return type on a line of its own (GNU style).
        head = ' '.join(code[start : start + 2]) if start + 1 < len(code) and '(' not in code[start] else code[start] if start < len(code) else ''
        if not DEFINITION.match(head) or head.startswith(('if', 'for', 'while', 'return', 'else', 'typedef', '#')):
            continue
        # The body: the first '{' before any ';', then braces matched over the blanked code.
        depth, line, opened = 0, start, False
        while line < len(code) and line < start + 400:
            for ch in code[line]:
                if ch == ';' and not opened:
                    line = len(code)
                    break
                if ch == '{':
                    depth += 1
                    opened = True
                elif ch == '}':
                    depth -= 1
            if opened and depth <= 0:
                break
            line += 1
        if not opened or line >= len(code) or depth != 0:
            continue
        question = first_paragraph(match.group(1))
        if question and not re.search(r'[;{}]|#\s*(if|define)', question):
            found.append((question, start + 1, line + 1))
    return found


def c_corpus(out):
    found = []
    with tarfile.open(C_TARBALL) as tar:
        for member in tar.getmembers():
            if not member.isfile() or not member.name.endswith(('.c', '.h')):
                continue
            relative = member.name.split('/', 1)[1] if '/' in member.name else member.name
            text = tar.extractfile(member).read().decode('utf-8', errors='replace')
            blanked = blank_c_comments(text)
            for question, start, end in c_definitions(text, blanked):
                found.append((question, relative, start, end))
            target = os.path.join(out, relative)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            open(target, 'w', encoding='utf-8').write(blanked)
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('out')
    parser.add_argument('--per-corpus', type=int, default=150)
    args = parser.parse_args()
    os.makedirs(os.path.join(args.out, 'questions'), exist_ok=True)
    corpora = [(name, lambda out, name=name: python_corpus(name, out)) for name in PYTHON] + [('pocl', c_corpus)]
    for name, mine in corpora:
        out = os.path.join(args.out, name)
        shutil.rmtree(out, ignore_errors=True)
        found = mine(out)
        # One question per text (a docstring copied onto overloads says nothing about which one).
        by_text = {}
        for question, relative, start, end in found:
            by_text.setdefault(question, []).append((relative, start, end))
        unique = sorted((q, t[0]) for q, t in by_text.items() if len(t) == 1)
        random.Random(33).shuffle(unique)
        chosen = unique[: args.per_corpus]
        questions = [
            {
                'id': f'{name}-m{index:03d}',
                'corpus': name,
                'kind': 'meaning',
                'question': question,
                'targets': [{'path': relative, 'start': start, 'end': end}],
            }
            for index, (question, (relative, start, end)) in enumerate(chosen)
        ]
        json.dump(questions, open(os.path.join(args.out, 'questions', f'{name}.json'), 'w'), indent=1)
        print(f'{name}: {len(found)} documented definitions, {len(questions)} questions')


if __name__ == '__main__':
    main()
