// Differential test of region parsing for structural search. The invariant: on a file whose whole
// tree-sitter parse has no error, `parseForSearch` (which parses only the regions that may hold a
// match, or the whole file when it cannot trust a partial parse) finds exactly the matches, with
// the same ranges and bindings, that `findInTree` finds on the whole parse, for every rule.
//
// Files come from test/helpers/region-fuzz.ts: per language, a seeded snippet (structured items,
// traps that would parse as code holding the needle inside strings, comments, templates, raw
// strings or preprocessor lines, and token soup) placed among plain items at top level, in a
// function body or in a class. Each language checks a fixed number of files from a fixed seed
// (so the result does not depend on the machine's speed), skipping repeated snippets and files
// whose whole parse has an error; it also checks that enough files were clean and that enough
// searches really parsed only part of a file, so that the test cannot decay into checking nothing.
//
// A failure names the language, seed, file index, rule, snippet and both lists of matches. To see
// that one file (after `npm run build`):
//   node --input-type=module -e "import { makeFile } from './dist/test/helpers/region-fuzz.js'; process.stdout.write(makeFile('c', 1001, 42).text)"
// A longer search, with another seed or more files per language (the minimum counts scale with
// the number of files):
//   FATHOM_FUZZ_SEED=77 FATHOM_FUZZ_FILES=20000 node --test dist/test/structural-fuzz.test.js
// and `--test-name-pattern='^python'` to run one language. Seeds 1 to 9 and 21 were searched by
// hand while the region scanners were written; this test uses 1001.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GrammarSet } from '../src/index/syntax/grammars.js';
import { compareWholeAndPartial, makeFile, rules } from './helpers/region-fuzz.js';

const grammars = new GrammarSet();

function fromEnvironment(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 0) throw new Error(`${name} must be a non-negative integer, not ${JSON.stringify(value)}`);
  return number;
}

const seed = fromEnvironment('FATHOM_FUZZ_SEED') ?? 1001;
const filesOverride = fromEnvironment('FATHOM_FUZZ_FILES');

interface Plan {
  language: string;
  /** Files generated (repeats and files whose whole parse has an error included). */
  files: number;
  /** At least this many distinct files parse cleanly whole (about half what seed 1001 gives). */
  minClean: number;
  /** At least this many searches parse only part of a file (about half what seed 1001 gives). */
  minPartial: number;
}

const plans: Plan[] = [
  { language: 'c', files: 1800, minClean: 180, minPartial: 440 },
  { language: 'cpp', files: 1800, minClean: 160, minPartial: 530 },
  { language: 'javascript', files: 1500, minClean: 190, minPartial: 600 },
  { language: 'typescript', files: 1200, minClean: 200, minPartial: 620 },
  { language: 'python', files: 1800, minClean: 360, minPartial: 1000 },
  { language: 'java', files: 1000, minClean: 350, minPartial: 1250 },
  { language: 'go', files: 1200, minClean: 460, minPartial: 2000 },
];

/** How many failures a message shows in full. */
const shown = 5;

describe('region parse agrees with a whole parse on generated files', () => {
  for (const plan of plans) {
    const files = filesOverride ?? plan.files;
    const scale = files / plan.files;
    test(`${plan.language}: ${files} files of seed ${seed}`, async (context) => {
      const state = await grammars.load(plan.language);
      if (state.state !== 'loaded') throw new Error(`no ${plan.language} grammar: ${state.reason}`);
      const seen = new Set<string>();
      const failures: string[] = [];
      let clean = 0;
      let partial = 0;
      for (let index = 0; index < files; index++) {
        const file = makeFile(plan.language, seed, index);
        const key = file.where + file.snippet;
        if (seen.has(key)) continue;
        seen.add(key);
        const comparisons = compareWholeAndPartial(grammars, state.grammar, plan.language, file.text, rules[plan.language]!);
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
        `${failures.length} searches found other matches on a region parse than on the whole parse; file text: makeFile('${plan.language}', ${seed}, index).text\n${failures.slice(0, shown).join('\n')}${failures.length > shown ? `\n… and ${failures.length - shown} more` : ''}`,
      );
      const minClean = Math.floor(plan.minClean * scale);
      const minPartial = Math.floor(plan.minPartial * scale);
      assert.ok(clean >= minClean, `${plan.language}: only ${clean} of ${files} files parse cleanly whole (expected at least ${minClean})`);
      assert.ok(partial >= minPartial, `${plan.language}: only ${partial} searches parsed part of a file (expected at least ${minPartial})`);
      context.diagnostic(`${plan.language}: ${clean} clean files, ${partial} partial parses`);
    });
  }
});
