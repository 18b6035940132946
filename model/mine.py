#!/usr/bin/env python3
"""Mines (natural-language text -> code) pairs for Fathom's code-search model.

Sources: Python code that installs by name from Debian (the standard library and the
dist-packages listed in model/rebuild.sh), and JavaScript from npm packages that document their
functions with JSDoc (installed by model/rebuild.sh into NPM_DIR); never the benchmark corpora
(Django, the Linux kernel, TypeScript, rxjs) nor the evaluation codebases (Werkzeug, Jinja2, zod).
For every Python function, method or class with a docstring: the text is the docstring's first
paragraph (argument lists, doctests and markup dropped), the code is the definition's source
without its docstring. For JavaScript: a /** JSDoc */ block's first paragraph, and the function,
method or class declared right after it (braces matched, strings and comments skipped). Pairs
are deduplicated by text and by code; whole packages are held out for validation.

Usage: python3 model/mine.py OUT_DIR [NPM_DIR]   (writes train.jsonl, valid.jsonl, counts.json)
"""
import ast
import hashlib
import json
import os
import re
import sys
import sysconfig

EXCLUDED = {'django', 'werkzeug', 'jinja2'}
# Generated SDK code (22,000 files of Azure's): slow to read, and its docstrings are boilerplate.
GENERATED = {'azure'}
VALID = {'click', 'requests', 'networkx', 'npm:underscore', 'npm:graphql'}
JS_EXCLUDED = {'zod', 'typescript', 'rxjs'}
DIST = '/usr/lib/python3/dist-packages'
STDLIB = sysconfig.get_paths()['stdlib'] if os.path.isdir(sysconfig.get_paths()['stdlib']) else '/usr/lib/python3.11'


def sources():
    """(source name, file path) for every Python file of the standard library and dist-packages."""
    for base, name_of in ((STDLIB, lambda rel: 'stdlib'), (DIST, lambda rel: rel.split(os.sep)[0])):
        for folder, dirs, files in os.walk(base):
            rel = os.path.relpath(folder, base)
            top = rel.split(os.sep)[0]
            dirs[:] = sorted(d for d in dirs if d not in ('__pycache__', 'test', 'tests', 'testing', 'site-packages', 'dist-packages') and not d.endswith(('.dist-info', '.egg-info')))
            if base == DIST and (top in EXCLUDED or top in GENERATED):
                dirs[:] = []
                continue
            if base == DIST and top == '.':
                dirs[:] = [d for d in dirs if d not in EXCLUDED and d not in GENERATED]
                continue
            for file in sorted(files):
                if file.endswith('.py') and not file.startswith('test_'):
                    yield name_of(rel), os.path.join(folder, file)


SECTION = re.compile(r'^\s*(:param|:type|:return|:rtype|:raises|Args:|Arguments:|Parameters|Returns|Raises|Examples?:?|Notes?:?|See Also|Yields|Attributes|>>>|\.\. )', re.I)


def summary(doc):
    lines = []
    for line in doc.strip().splitlines():
        if not line.strip() or SECTION.match(line):
            break
        lines.append(line.strip())
    text = re.sub(r'[`*]|:(func|class|meth|attr|mod|data|exc|obj|ref):', '', ' '.join(lines))
    text = re.sub(r'\s+', ' ', text).strip()
    return text[:400]


def without_docstring(source, node):
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], 'value', None), ast.Constant) and isinstance(body[0].value.value, str):
        lines = source.splitlines()
        start, end = body[0].lineno - node.lineno, body[0].end_lineno - node.lineno
        segment = ast.get_source_segment(source, node, padded=True) or ''
        seg_lines = segment.splitlines()
        del seg_lines[start:end + 1]
        return '\n'.join(seg_lines)
    return ast.get_source_segment(source, node, padded=True) or ''


def pairs_of(path):
    try:
        with open(path, encoding='utf-8') as handle:
            source = handle.read()
        tree = ast.parse(source)
    except (SyntaxError, UnicodeDecodeError, ValueError, OSError):
        return
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if node.name.startswith('test'):
            continue
        doc = ast.get_docstring(node)
        if not doc:
            continue
        text = summary(doc)
        if len(text.split()) < 4:
            continue
        code = without_docstring(source, node)
        if isinstance(node, ast.ClassDef):
            code = '\n'.join(code.splitlines()[:60])
        if len(code) < 40:
            continue
        yield {'text': text, 'code': code[:3000], 'name': node.name}


JSDOC = re.compile(r'/\*\*((?:[^*]|\*(?!/))*)\*/\s*\n([ \t]*)([^\n]*)')
DECLARATION = re.compile(r'^(export\s+)?(default\s+)?(async\s+)?(function\s*\*?\s*[\w$]+\s*\(|(const|let|var)\s+[\w$]+\s*=\s*(async\s+)?(function\b|\([^)]*\)\s*=>|[\w$]+\s*=>)|class\s+[\w$]+|(static\s+)?(async\s+)?(get\s+|set\s+)?[\w$]+\s*\([^)]*\)\s*\{)')


def js_summary(doc):
    lines = []
    for line in doc.splitlines():
        line = re.sub(r'^\s*\*\s?', '', line).strip()
        if line.startswith('@'):
            break
        if not line:
            if lines:
                break
            continue
        lines.append(line)
    text = re.sub(r'\{@\w+\s+([^}]*)\}', r'\1', ' '.join(lines))
    text = re.sub(r'<[^>]+>|[`*]', '', text)
    return re.sub(r'\s+', ' ', text).strip()[:400]


def js_block(source, start):
    """The text from `start` through the brace that closes the first `{` after it (strings, comments, templates skipped)."""
    depth, at, opened = 0, start, False
    while at < len(source):
        ch = source[at]
        if ch in '"\'`':
            quote, at = ch, at + 1
            while at < len(source) and source[at] != quote:
                at += 2 if source[at] == '\\' else 1
        elif source.startswith('//', at):
            at = source.find('\n', at)
            if at < 0:
                return None
        elif source.startswith('/*', at):
            at = source.find('*/', at)
            if at < 0:
                return None
            at += 1
        elif ch == '{':
            depth += 1
            opened = True
        elif ch == '}':
            depth -= 1
            if opened and depth == 0:
                return source[start:at + 1]
        elif ch == ';' and not opened and depth == 0:
            return source[start:at + 1]
        at += 1
        if at - start > 6000:
            return None
    return None


def js_pairs_of(path):
    try:
        with open(path, encoding='utf-8') as handle:
            source = handle.read()
    except (UnicodeDecodeError, OSError):
        return
    if len(source) > 2_000_000 or '\n' not in source[:5000]:
        return  # bundles and minified files
    for match in JSDOC.finditer(source):
        declaration = match.group(3)
        if not DECLARATION.match(declaration.strip()):
            continue
        text = js_summary(match.group(1))
        if len(text.split()) < 4:
            continue
        code = js_block(source, match.start(3))
        if not code or len(code) < 40:
            continue
        name = re.findall(r'[\w$]+', declaration)
        yield {'text': text, 'code': code[:3000], 'name': name[-1] if name else ''}


def js_sources(npm_dir):
    base = os.path.join(npm_dir, 'node_modules')
    if not os.path.isdir(base):
        return
    packages = []
    for name in sorted(os.listdir(base)):
        if name.startswith('@'):
            # Scoped packages (@babel/parser, @vue/…), but not @types: declarations without bodies.
            if name != '@types' and os.path.isdir(os.path.join(base, name)):
                packages += [f'{name}/{inner}' for inner in sorted(os.listdir(os.path.join(base, name)))]
        elif not name.startswith('.'):
            packages.append(name)
    for package in packages:
        if package in JS_EXCLUDED or 'zod' in package:
            continue
        for folder, dirs, files in os.walk(os.path.join(base, package)):
            dirs[:] = sorted(d for d in dirs if d not in ('node_modules', 'test', 'tests', '__tests__', 'dist', 'umd', 'cdn'))
            for file in sorted(files):
                if file.endswith(('.js', '.mjs', '.cjs', '.ts')) and not file.endswith(('.min.js', '.d.ts', '.test.js', '.spec.js')):
                    yield 'npm:' + package, os.path.join(folder, file)


def main():
    out = sys.argv[1]
    npm_dir = sys.argv[2] if len(sys.argv) > 2 else None
    os.makedirs(out, exist_ok=True)
    seen_text, seen_code = set(), set()
    counts = {}
    with open(os.path.join(out, 'train.jsonl'), 'w') as train, open(os.path.join(out, 'valid.jsonl'), 'w') as valid:
        all_sources = [(source, path, pairs_of) for source, path in sources()]
        if npm_dir:
            all_sources += [(source, path, js_pairs_of) for source, path in js_sources(npm_dir)]
        for source, path, extract in all_sources:
            for pair in extract(path):
                text_key = pair['text'].lower()
                code_key = hashlib.sha256(pair['code'].encode()).hexdigest()
                if text_key in seen_text or code_key in seen_code:
                    continue
                seen_text.add(text_key)
                seen_code.add(code_key)
                pair['source'] = source
                (valid if source in VALID else train).write(json.dumps(pair) + '\n')
                counts[source] = counts.get(source, 0) + 1
    total = sum(counts.values())
    held = sum(count for source, count in counts.items() if source in VALID)
    summary_counts = {'pairs': total, 'train': total - held, 'valid': held, 'validSources': sorted(VALID), 'excluded': sorted(EXCLUDED), 'bySource': dict(sorted(counts.items(), key=lambda item: -item[1]))}
    with open(os.path.join(out, 'counts.json'), 'w') as handle:
        json.dump(summary_counts, handle, indent=1)
    print(json.dumps({k: v for k, v in summary_counts.items() if k != 'bySource'}))


if __name__ == '__main__':
    main()
