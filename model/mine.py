#!/usr/bin/env python3
"""Mines (natural-language text -> code) pairs for Fathom's code-search model.

Sources: Python code that installs by name from Debian (the standard library and the
dist-packages listed in model/rebuild.sh), JavaScript from npm packages that document their
functions with JSDoc (installed by model/rebuild.sh into NPM_DIR), and C from Debian's source
packages named in model/debian-c-sources.txt (glibc-source, binutils-source, …); never the
benchmark corpora (Django, the Linux kernel, TypeScript, rxjs) nor the evaluation codebases
(Werkzeug, Jinja2, zod, Open vSwitch). For every Python function, method or class with a
docstring: the text is the docstring's first paragraph (argument lists, doctests and markup
dropped), the code is the definition's source without its docstring. For JavaScript: a /** JSDoc */
block's first paragraph, and the function, method or class declared right after it (braces
matched, strings and comments skipped). For C: the first paragraph of the comment block right
above a function, struct/union/enum or macro definition (licences, tags, commented-out code and
bare names dropped), or of a header's comment on the function's prototype, and the definition
(braces matched, strings, character literals, comments and directives skipped); at most C_CAP
pairs per C package. Pairs are deduplicated by text and by code; whole packages are held out for
validation.

Usage: python3 model/mine.py OUT_DIR [NPM_DIR] [--c-sources model/debian-c-sources.txt]
           [--c-cache DIR] [--c-debs DIR] [--only python|js|c]
       (writes train.jsonl, valid.jsonl, counts.json)
"""
import argparse
import ast
import bisect
import functools
import hashlib
import itertools
import json
import os
import re
import subprocess
import sys
import sysconfig

EXCLUDED = {'django', 'werkzeug', 'jinja2'}
# Generated SDK code (22,000 files of Azure's): slow to read, and its docstrings are boilerplate.
GENERATED = {'azure'}
VALID = {'click', 'requests', 'networkx', 'npm:underscore', 'npm:graphql', 'c:pocl-source'}
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


# C from Debian's source packages (model/debian-c-sources.txt): their tarballs under /usr/src are
# unpacked (.c and .h only) into a cache folder. Never the Linux kernel nor Open vSwitch (benchmark
# and evaluation corpora).
C_EXCLUDED = ('linux-', 'openvswitch-source')
C_CAP = 15_000  # pairs per C source package, so that glibc does not drown the rest
C_SKIP_DIRS = {'test', 'tests', 'testsuite', 'testsuites', 'testdata', 'unittests', 'debian', 'po', '.pc', 'patches'}
C_SKIP_FILES = re.compile(r'^(tst|test|bug)[-_]|[-_]test\.[ch]$')
TARBALL = re.compile(r'\.(tar(\.(xz|gz|bz2|zst|lz))?|tgz|txz)$')


def c_package_files(package, cache, debs=None):
    """The files a C source package ships: installed (dpkg-query -L) or, with `debs`, the package's .deb in that folder unpacked into the cache."""
    if debs:
        found = sorted(name for name in os.listdir(debs) if name.startswith(package + '_') and name.endswith('.deb'))
        if not found:
            raise SystemExit(f'no {package}_*.deb in {debs}')
        root = os.path.join(cache, package, 'deb')
        if not os.path.isdir(root):
            os.makedirs(root + '.part', exist_ok=True)
            subprocess.run(['dpkg-deb', '-x', os.path.join(debs, found[-1]), root + '.part'], check=True)
            os.rename(root + '.part', root)
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            for file in sorted(files):
                yield os.path.join(folder, file)
        return
    listed = subprocess.run(['dpkg-query', '-L', package], capture_output=True, text=True)
    if listed.returncode != 0:
        raise SystemExit(f'{package} is not installed (model/rebuild.sh installs model/debian-c-sources.txt)')
    for path in listed.stdout.splitlines():
        if os.path.isfile(path) and not os.path.islink(path):
            yield path


def c_sources(packages, cache, debs=None):
    """(source name, file path) for the .c and .h files of Debian source packages installed by name:
    their tarballs (glibc-source's /usr/src/glibc/glibc-2.36.tar.xz, …) unpacked into `cache`, their
    loose files as they are; test folders and test files skipped, headers first (their comments
    document functions defined in the .c files)."""
    for package in packages:
        if package.startswith(C_EXCLUDED):
            raise SystemExit(f'{package}: the Linux kernel and Open vSwitch are benchmark corpora, never training data')
        roots = []
        for path in c_package_files(package, cache, debs):
            if TARBALL.search(path):
                target = os.path.join(cache, package, TARBALL.sub('', os.path.basename(path)))
                if not os.path.isdir(target):
                    os.makedirs(target + '.part', exist_ok=True)
                    subprocess.run(['tar', '-xf', path, '-C', target + '.part', '--wildcards', '--no-anchored', '*.c', '*.h'], check=True)
                    os.rename(target + '.part', target)
                roots.append(target)
            elif path.endswith(('.c', '.h')):
                roots.append(path)
        files = []
        for root in roots:
            if os.path.isfile(root):
                if not set(root.split(os.sep)) & C_SKIP_DIRS:
                    files.append(root)
                continue
            for folder, dirs, names in os.walk(root):
                dirs[:] = sorted(d for d in dirs if d.lower() not in C_SKIP_DIRS)
                files += [os.path.join(folder, name) for name in names if name.endswith(('.c', '.h'))]
        files = [path for path in files if not C_SKIP_FILES.search(os.path.basename(path))]
        for path in sorted(set(files), key=lambda path: (not path.endswith('.h'), path)):
            yield 'c:' + package, path


# Comments, strings, character literals and preprocessor lines (which may hold comments and run on
# over backslashes): blanked out of the text that braces are matched and declarations parsed in.
C_LEXEMES = re.compile(r'(?P<comment>/\*(?s:.*?)\*/|//[^\n]*)|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|(?P<directive>^[ \t]*#(?:/\*(?s:.*?)\*/|\\\n|[^\n])*)', re.M)
C_TOKEN = re.compile(r'\s*([A-Za-z_]\w*|\d[\w.]*|\.\.\.|\S)')
C_KEYWORDS = {'if', 'else', 'for', 'while', 'do', 'switch', 'case', 'return', 'goto', 'sizeof', 'typedef', 'break', 'continue', 'default', 'defined',
              'typeof', '__typeof__', '_Static_assert', 'static_assert', '_Generic', '__extension__', 'asm', '__asm__', '__asm'}
C_ATTRIBUTES = {'__attribute__', '__attribute', '__declspec', '__asm__', 'asm', '__asm', '__THROW', '__nonnull', '__wur', '__attribute_pure__'}
C_TAG = re.compile(r'^\s*[@\\](?!brief\b|short\b)\w+|^\s*(parameters?|args|arguments|inputs?|outputs?|returns?|return value|results?|notes?|example|synopsis|see also|side effects)\s*:', re.I)
C_GENERATED = re.compile(r"machine generated|do not edit|don't edit|generated automatically|automatically generated|auto-?generated|lexical scanner generated by|Bison implementation|file (was|is) (generated|created) by", re.I)
C_LEGAL = re.compile(r'copyright|licen[cs]e|SPDX-|free software|warranty|all rights reserved', re.I)


def c_mask(source):
    """The source with comments, strings, character literals and directives blanked (newlines kept), and its comments as (start, end)."""
    comments, parts, at = [], [], 0
    for match in C_LEXEMES.finditer(source):
        parts.append(source[at:match.start()])
        text = match.group(0)
        if match.group('comment'):
            comments.append((match.start(), match.end()))
        parts.append(re.sub(r'[^\n]', ' ', text))
        at = match.end()
    parts.append(source[at:])
    return ''.join(parts), comments


def c_depths(masked):
    """Sorted brace positions and the top-level depth after each: `extern "C" {` does not count, and a `}` in column 0 ends whatever was open."""
    positions, depths, stack = [], [], []
    for match in re.finditer(r'[{}]', masked):
        at = match.start()
        if masked[at] == '{':
            stack.append(not masked[max(0, at - 60):at].rstrip().endswith('extern'))
        elif at == 0 or masked[at - 1] == '\n':
            stack = [opened for opened in stack if not opened]
        elif stack:
            stack.pop()
        positions.append(at)
        depths.append(sum(stack))
    return positions, depths


def c_block_end(masked, start):
    """The index of the `}` closing the `{` at `start` (a `}` in column 0 closes it whatever the count, as `#if` branches may open twice)."""
    depth = 0
    for match in re.finditer(r'[{}]', masked[start:start + 30000]):
        at = start + match.start()
        if masked[at] == '{':
            if depth > 0 and masked[at - 1] == '\n' and at != start:
                return None  # a `{` in column 0 inside: the previous definition never closed
            depth += 1
        else:
            depth -= 1
            if depth == 0 or masked[at - 1] == '\n':
                return at
    return None


def c_declaration(masked, start):
    """Parses the declaration that begins at `start`: ('function', name, index of its `{`), ('prototype', name, index of its `;`),
    ('struct', name, index of its `{`) or None."""
    tokens = [(m.group(1), m.end()) for m in C_TOKEN.finditer(masked, start, min(len(masked), start + 1200))]
    i, prefix = 0, []

    def skip_parens(i):
        depth = 0
        while i < len(tokens):
            depth += {'(': 1, ')': -1}.get(tokens[i][0], 0)
            i += 1
            if depth == 0:
                return i
        return None
    while i < len(tokens):
        token = tokens[i][0]
        following = tokens[i + 1][0] if i + 1 < len(tokens) else ''
        if token in C_ATTRIBUTES and following == '(':
            i = skip_parens(i + 1)
            if i is None:
                return None
            continue
        if re.match(r'[A-Za-z_]', token) and following == '(':
            break
        if token == '{':
            words = [word for word in prefix if word != 'typedef']
            if words and words[0] in ('struct', 'union', 'enum') and len(words) <= 2 and all(re.match(r'[A-Za-z_]\w*$', word) for word in words):
                return ('struct', words[1] if len(words) == 2 else '', tokens[i][1] - 1)
            return None
        if not (re.match(r'[A-Za-z_]\w*$', token) or token == '*') or token in C_KEYWORDS:
            return None
        prefix.append(token)
        i += 1
    else:
        return None
    name = tokens[i][0]
    if name in C_KEYWORDS or not any(re.match(r'[A-Za-z_]', word) for word in prefix) or 'typedef' in prefix:
        return None
    close = skip_parens(i + 1)
    if close is None:
        return None
    params = [token for token, _ in tokens[i + 2:close - 1]]
    knr = bool(params) and all(re.match(r'[A-Za-z_]\w*$', token) or token == ',' for token in params) and params != ['void']
    i, declared = close, []
    while i < len(tokens):
        token = tokens[i][0]
        if token == '{':
            if declared and not set(declared) <= set(params):
                return None
            return ('function', name, tokens[i][1] - 1)
        if token == ';':
            if not knr or i == close:
                return ('prototype', name, tokens[i][1] - 1)
            previous = [word for word, _ in tokens[close:i] if re.match(r'[A-Za-z_]\w*$', word)]
            declared.append(previous[-1] if previous else '')
        elif token in ('=', '}', ':', '"', "'", '#', '.', '->', '?') or token in C_KEYWORDS:
            return None
        i += 1
    return None


def c_comment_text(comment, name=''):
    """A comment's first paragraph as text ('' when it is a licence, code, a bare name or under 4 words); bfd's and newlib's
    FUNCTION / DESCRIPTION blocks give their DESCRIPTION."""
    body = re.sub(r'^/\*+!?|\*+/$', '', comment.strip()) if comment.lstrip().startswith('/*') else re.sub(r'(?m)^\s*//+!?', '', comment)
    lines = [re.sub(r'^\s*[*\\]+(?=\s|$)\s?|\s*[*\\]+$', '', line).rstrip() for line in body.splitlines()]
    if C_LEGAL.search(body):
        return ''
    for at, line in enumerate(lines):
        if re.match(r'\s*DESCRIPTION\s*:?\s*$', line):
            lines = lines[at + 1:]
            break
    paragraph = []
    for line in lines:
        stripped = re.sub(r'^[-=*~_+#]{3,}\s*|\s*[-=*~_+#]{3,}$', '', line.strip())
        if not stripped or re.match(r'^[-=*#~_+/ ]+$', stripped):
            if paragraph:
                break
            continue
        if C_TAG.match(stripped) or re.match(r'^[A-Z][A-Z _]+$', stripped) and len(stripped) > 3 and paragraph:
            break
        paragraph.append(stripped)
    if any(re.search(r'[;{}]\s*$|^#\s*(if|ifdef|ifndef|define|include|endif|else)\b', line) for line in paragraph):
        return ''  # commented-out code
    text = ' '.join(paragraph)
    text = re.sub(r'^[@\\](brief|short)\s+', '', text)
    text = re.sub(r'@(var|code|samp|emph|file|option|strong|dfn|ref|xref|pxref|command|env|kbd|key|cite|acronym)\{([^}]*)\}', r'\2', text)
    text = re.sub(r'<<([^<>]*)>>|<\[([^\]]*)\]>', lambda m: m.group(1) or m.group(2) or '', text)
    text = re.sub(r"`([^`']*)'", r'\1', text)
    text = re.sub(r'[`*]', '', text)
    if name:
        text = re.sub(r'^' + re.escape(name) + r'\s*(\(\s*\))?\s*(---?|--|-|:|—|$)\s*', '', text)
    text = re.sub(r'\s+', ' ', text).strip()
    if len(text.split()) < 4 or not re.search(r'[a-z]', text):
        return ''
    return text[:400]


def c_pairs_of(path, docs=None):
    """Pairs from one C file: a comment block (/* … */, or consecutive // lines) directly above a function definition
    (a blank line allowed; GNU style with the return type on its own line too), a struct, union or enum definition
    or a #define; the code is the definition through its closing brace. With `docs` (a dict shared by a package's
    files, headers first): comments above prototypes, and bfd's and newlib's FUNCTION blocks, name their function,
    and its definition in this file is paired with them when no comment of its own was."""
    try:
        with open(path, encoding='utf-8', errors='replace') as handle:
            source = handle.read()
    except OSError:
        return
    if len(source) > 1_200_000 or C_GENERATED.search(source[:1500]):
        return  # generated code and tables (CGEN's simulators and opcodes, iconv, flex)
    masked, comments = c_mask(source)
    positions, depths = c_depths(masked)
    paired = set()
    index = 0
    while index < len(comments):
        start, end = comments[index]
        # consecutive // lines are one block
        while source[start:start + 2] == '//' and index + 1 < len(comments) and source[comments[index + 1][0]:comments[index + 1][0] + 2] == '//' \
                and re.fullmatch(r'[ \t]*\n[ \t]*', source[end:comments[index + 1][0]]):
            index += 1
            end = comments[index][1]
        index += 1
        line_start = source.rfind('\n', 0, start) + 1
        if source[line_start:start].strip():
            continue  # a comment after code on its line
        at = bisect.bisect_left(positions, start)
        if at and depths[at - 1] != 0:
            continue  # inside a function or struct
        after = re.match(r'[ \t]*\n(?:[ \t]*\n)?', source[end:])
        if not after:
            continue
        begin = end + after.end()
        comment = source[start:end]
        if re.match(r'[ \t]*#[ \t]*define\b', source[begin:]):
            line = re.match(r'(?:[^\n]*\\\n)*[^\n]*', source[begin:]).group(0)
            name = re.match(r'[ \t]*#[ \t]*define[ \t]+(\w+)(\()?', line)
            text = c_comment_text(comment, name.group(1) if name else '')
            code = line.rstrip()
            # function-like or multi-line macros; a one-line constant is little more than its name
            if text and len(code) >= 40 and name and (name.group(2) or '\n' in code):
                yield {'text': text, 'code': code[:3000], 'name': name.group(1)}
            continue
        declaration = c_declaration(masked, begin) if re.match(r'[ \t]*[A-Za-z_]', masked[begin:begin + 200]) else None
        if declaration and re.search(r'\n[ \t]*\n', masked[begin:declaration[2]]):
            declaration = None  # a blank line, comment line or directive inside: not one declaration
        if not declaration:
            if docs is not None and re.match(r'\s*FUNCTION\b', comment.lstrip('/*')):
                names = re.findall(r'<<(\w+)>>', comment) or re.findall(r'FUNCTION\s+(\w+)', comment)
                text = c_comment_text(comment, names[0] if names else '')
                if names and text:
                    docs.setdefault(names[0], text)
            continue
        kind, name, opening = declaration
        text = c_comment_text(comment, name)
        if kind == 'prototype':
            # not a heading over a group of declarations: the next line is blank, a comment or a directive
            if docs is not None and text and re.match(r'[ \t]*\n[ \t]*(\n|$)|[ \t]*$', masked[opening + 1:]):
                docs.setdefault(name, text)
            continue
        close = c_block_end(masked, opening)
        if close is None:
            continue
        stop = close + 1
        if kind == 'struct':
            tail = re.match(r'[^;{}]{0,200};', masked[stop:])
            if not tail:
                continue
            stop += tail.end()
            name = name or (re.findall(r'\w+', masked[close + 1:stop]) or [''])[-1]
        code = source[begin:stop]
        if text and len(code) >= 40:
            paired.add(name)
            yield {'text': text, 'code': code[:3000], 'name': name}
    if not docs or path.endswith('.h'):
        return
    # definitions of functions documented elsewhere (a header's prototype, a FUNCTION block), also under
    # glibc's internal names: __foo for foo, or what weak_alias (__foo, foo) and the like name
    aliases = {internal: public for internal, public in re.findall(r'\b\w*alias\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)', masked)}

    def documented(name):
        for public in (name, aliases.get(name), name[2:] if name.startswith('__') else None):
            if public in docs:
                return public
        return None
    for match in re.finditer(r'^[A-Za-z_][^\n]*\n', masked, re.M):
        named = re.search(r'(\w+)\s*\(', match.group(0)) or re.match(r'[^(;]*\n(\w+)\s*\(', masked[match.start():match.start() + 300])
        if not named or not documented(named.group(1)) or named.group(1) in paired:
            continue
        at = bisect.bisect_left(positions, match.start())
        if at and depths[at - 1] != 0:
            continue
        declaration = c_declaration(masked, match.start())
        if not declaration or declaration[0] != 'function' or declaration[1] in paired:
            continue
        name, opening = declaration[1], declaration[2]
        public = documented(name)
        close = c_block_end(masked, opening)
        if close is None or not public or not docs[public]:
            continue
        paired.add(name)
        code = source[match.start():close + 1]
        if len(code) >= 40:
            yield {'text': docs[public], 'code': code[:3000], 'name': name}


def main():
    parser = argparse.ArgumentParser(description='Mines (text -> code) pairs into OUT_DIR: train.jsonl, valid.jsonl, counts.json.')
    parser.add_argument('out')
    parser.add_argument('npm_dir', nargs='?', help='where model/rebuild.sh installed model/npm (JavaScript)')
    parser.add_argument('--c-sources', help='a file naming the Debian packages whose C sources are mined (model/debian-c-sources.txt)')
    parser.add_argument('--c-cache', help='where their tarballs are unpacked (default OUT/c-src)')
    parser.add_argument('--c-debs', help='take those packages from their .deb files in this folder (apt-get download) instead of installed ones')
    parser.add_argument('--only', choices=('python', 'js', 'c'), help='mine one language only')
    args = parser.parse_args()
    out = args.out
    os.makedirs(out, exist_ok=True)
    c_packages = []
    if args.c_sources:
        with open(args.c_sources) as handle:
            c_packages = [line.strip() for line in handle if line.strip() and not line.startswith('#')]
    seen_text, seen_code = set(), set()
    counts, languages = {}, {}
    with open(os.path.join(out, 'train.jsonl'), 'w') as train, open(os.path.join(out, 'valid.jsonl'), 'w') as valid:
        parts = []  # iterables of (source, path, extract)
        if args.only in (None, 'python'):
            parts.append((source, path, pairs_of) for source, path in sources())
        if args.npm_dir and args.only in (None, 'js'):
            parts.append((source, path, js_pairs_of) for source, path in js_sources(args.npm_dir))
        if c_packages and args.only in (None, 'c'):
            docs = {}  # per package: comments on prototypes and FUNCTION blocks, by function name
            parts.append((source, path, functools.partial(c_pairs_of, docs=docs.setdefault(source, {})))
                         for source, path in c_sources(c_packages, args.c_cache or os.path.join(out, 'c-src'), args.c_debs))
        for source, path, extract in itertools.chain(*parts):
            if source.startswith('c:') and counts.get(source, 0) >= C_CAP:
                continue
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
                language = 'c' if source.startswith('c:') else 'javascript' if source.startswith('npm:') else 'python'
                languages[language] = languages.get(language, 0) + 1
                if source.startswith('c:') and counts[source] >= C_CAP:
                    break
    total = sum(counts.values())
    held = sum(count for source, count in counts.items() if source in VALID)
    summary_counts = {'pairs': total, 'train': total - held, 'valid': held, 'validSources': sorted(VALID), 'excluded': sorted(EXCLUDED),
                      'byLanguage': languages, 'cSources': c_packages, 'cCapPerPackage': C_CAP,
                      'bySource': dict(sorted(counts.items(), key=lambda item: -item[1]))}
    with open(os.path.join(out, 'counts.json'), 'w') as handle:
        json.dump(summary_counts, handle, indent=1)
    print(json.dumps({k: v for k, v in summary_counts.items() if k != 'bySource'}))

if __name__ == '__main__':
    main()
