// Differential test of region parsing for structural search, on real language constructs. The
// invariant, as in structural-fuzz.test.ts: on a file whose whole tree-sitter parse has no error,
// `parseForSearch` (which parses only the regions that may hold a match, or the whole file when it
// cannot trust a partial parse) finds exactly the matches, with the same ranges and bindings, that
// `findInTree` finds on the whole parse, for every rule.
//
// Files come from test/helpers/region-constructs.ts: per language, one to three constructs drawn
// from a list of 39 (Go) to 115 (TypeScript): decorators, attributes, raw and template strings,
// macros, generics, labels, one-line compound statements, odd indentation… with the needle inside
// and after them, mutated (line breaks turned into comments, continuations, CRLF, form feeds or
// U+00A0; a `;` deleted; a token inserted; two lines swapped), placed at top level, in a function
// body or in a class, and searched with region-fuzz.ts's rules and more (`constructRules`). Each
// language checks a fixed number of files from a fixed seed (so the result does not depend on the
// machine's speed), skipping repeated snippets and files whose whole parse has an error; it also
// checks that enough files were clean and that enough searches really parsed only part of a file,
// so that the test cannot decay into checking nothing.
//
// A failure names the language, seed, file index, rule, snippet and both lists of matches. To see
// that one file (after `npm run build`):
//   node --input-type=module -e "import { makeConstructFile } from './dist/test/helpers/region-constructs.js'; process.stdout.write(makeConstructFile('python', 2022, 155).text)"
// A longer search, with another seed or more files per language (the minimum counts scale with
// the number of files):
//   FATHOM_CONSTRUCTS_SEED=77 FATHOM_CONSTRUCTS_FILES=20000 node --test dist/test/structural/structural-constructs.test.js
// and `--test-name-pattern='^python'` to run one language. The review that wrote the constructs
// searched seeds 1 and 2 (its seed s, file i is makeConstructFile's). This test uses 2022: before
// the mend of Python decorators indented deeper than their `def`, its Python file 155 failed.
import { describeDifferential } from '../helpers/differential.js';
import { constructRules, makeConstructFile } from '../helpers/region-constructs.js';

describeDifferential({
  title: 'region parse agrees with a whole parse on generated construct files',
  seedVariable: 'FATHOM_CONSTRUCTS_SEED',
  filesVariable: 'FATHOM_CONSTRUCTS_FILES',
  seed: 2022,
  // Files per language; the minimum counts are about half what the default seed gives.
  plans: [
    { language: 'c', files: 500, minClean: 135, minPartial: 850 },
    { language: 'cpp', files: 340, minClean: 105, minPartial: 1000 },
    { language: 'javascript', files: 450, minClean: 175, minPartial: 1600 },
    { language: 'typescript', files: 400, minClean: 165, minPartial: 1870 },
    { language: 'python', files: 700, minClean: 175, minPartial: 1340 },
    { language: 'java', files: 400, minClean: 105, minPartial: 800 },
    { language: 'go', files: 700, minClean: 170, minPartial: 1470 },
  ],
  make: makeConstructFile,
  makeName: 'makeConstructFile',
  rules: (language) => constructRules[language]!,
});
