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
//   FATHOM_CONSTRUCTS_SEED=77 FATHOM_CONSTRUCTS_FILES=20000 node --test dist/test/structural-constructs.test.js
// and `--test-name-pattern='^python'` to run one language. The review that wrote the constructs
// searched seeds 1 and 2 (its seed s, file i is makeConstructFile's). This test uses 2022: before
// the mend of Python decorators indented deeper than their `def`, its Python file 155 failed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GrammarSet } from '../src/index/syntax/grammars.js';
import { constructRules, makeConstructFile } from './helpers/region-constructs.js';
import { compareWholeAndPartial } from './helpers/region-fuzz.js';

const grammars = new GrammarSet();

function fromEnvironment(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 0) throw new Error(`${name} must be a non-negative integer, not ${JSON.stringify(value)}`);
  return number;
}

const seed = fromEnvironment('FATHOM_CONSTRUCTS_SEED') ?? 2022;
const filesOverride = fromEnvironment('FATHOM_CONSTRUCTS_FILES');

interface Plan {
  language: string;
  /** Files generated (repeats and files whose whole parse has an error included). */
  files: number;
  /** At least this many distinct files parse cleanly whole (about half what seed 2022 gives). */
  minClean: number;
  /** At least this many searches parse only part of a file (about half what seed 2022 gives). */
  minPartial: number;
}

const plans: Plan[] = [
  { language: 'c', files: 500, minClean: 135, minPartial: 850 },
  { language: 'cpp', files: 340, minClean: 105, minPartial: 1000 },
  { language: 'javascript', files: 450, minClean: 175, minPartial: 1600 },
  { language: 'typescript', files: 400, minClean: 165, minPartial: 1870 },
  { language: 'python', files: 700, minClean: 175, minPartial: 1340 },
  { language: 'java', files: 400, minClean: 105, minPartial: 800 },
  { language: 'go', files: 700, minClean: 170, minPartial: 1470 },
];

/** How many failures a message shows in full. */
const shown = 5;

describe('region parse agrees with a whole parse on generated construct files', () => {
  for (const plan of plans) {
    const files = filesOverride ?? plan.files;
    const scale = files / plan.files;
    test(`${plan.language}: ${files} construct files of seed ${seed}`, async (context) => {
      const state = await grammars.load(plan.language);
      if (state.state !== 'loaded') throw new Error(`no ${plan.language} grammar: ${state.reason}`);
      const searchRules = constructRules[plan.language]!;
      const seen = new Set<string>();
      const failures: string[] = [];
      let clean = 0;
      let partial = 0;
      for (let index = 0; index < files; index++) {
        const file = makeConstructFile(plan.language, seed, index);
        const key = file.where + file.snippet;
        if (seen.has(key)) continue;
        seen.add(key);
        const comparisons = compareWholeAndPartial(grammars, state.grammar, plan.language, file.text, searchRules);
        if (!comparisons) continue;
        clean += 1;
        for (const comparison of comparisons) {
          if (comparison.kind === 'partial') partial += 1;
          if (comparison.same) continue;
          failures.push(
            [
              `${plan.language}, seed ${seed}, index ${index} (snippet ${file.where === 'top' ? 'at top level' : file.where === 'body' ? 'in a function body' : 'in a class'}), ${comparison.kind} parse`,
              `  rule:     ${JSON.stringify(comparison.rule)}`,
              `  snippet:  ${JSON.stringify(file.snippet)}`,
              `  expected: ${JSON.stringify(comparison.expected)}`,
              `  actual:   ${JSON.stringify(comparison.actual)}`,
            ].join('\n'),
          );
        }
      }
      assert.equal(
        failures.length,
        0,
        `${failures.length} searches found other matches on a region parse than on the whole parse; file text: makeConstructFile('${plan.language}', ${seed}, index).text\n${failures.slice(0, shown).join('\n')}${failures.length > shown ? `\n… and ${failures.length - shown} more` : ''}`,
      );
      const minClean = Math.floor(plan.minClean * scale);
      const minPartial = Math.floor(plan.minPartial * scale);
      assert.ok(clean >= minClean, `${plan.language}: only ${clean} of ${files} files parse cleanly whole (expected at least ${minClean})`);
      assert.ok(partial >= minPartial, `${plan.language}: only ${partial} searches parsed part of a file (expected at least ${minPartial})`);
      context.diagnostic(`${plan.language}: ${clean} clean files, ${partial} partial parses`);
    });
  }
});
