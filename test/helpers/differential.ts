// The differential tests of region parsing (structural-fuzz.test.ts, structural-constructs.test.ts)
// share this driver: per language, a fixed number of generated files from a fixed seed (both from
// the environment when set), repeated snippets and files whose whole parse has an error skipped;
// every rule's matches on a region parse must equal the whole parse's, and at least so many files
// must be clean and so many searches really partial, so that a test cannot decay into checking
// nothing. A failure names what reproduces the file.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GrammarSet } from '../../src/index/syntax/grammars.js';
import { compareWholeAndPartial, type FuzzFile, type Rule } from './region-fuzz.js';

export interface DifferentialPlan {
  language: string;
  /** Files generated (repeats and files whose whole parse has an error included). */
  files: number;
  /** At least this many distinct files parse cleanly whole (about half what the default seed gives). */
  minClean: number;
  /** At least this many searches parse only part of a file (about half what the default seed gives). */
  minPartial: number;
}

export interface Differential {
  title: string;
  /** Environment variables that replace the seed and the number of files of every language. */
  seedVariable: string;
  filesVariable: string;
  seed: number;
  plans: DifferentialPlan[];
  /** The generator, and its name as a failure shows it (`makeFile`). */
  make: (language: string, seed: number, index: number) => FuzzFile;
  makeName: string;
  rules: (language: string) => readonly Rule[];
}

function fromEnvironment(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 0) throw new Error(`${name} must be a non-negative integer, not ${JSON.stringify(value)}`);
  return number;
}

/** How many failures a message shows in full. */
const shown = 5;

export function describeDifferential(options: Differential): void {
  const grammars = new GrammarSet();
  const seed = fromEnvironment(options.seedVariable) ?? options.seed;
  const filesOverride = fromEnvironment(options.filesVariable);
  describe(options.title, () => {
    for (const plan of options.plans) {
      const files = filesOverride ?? plan.files;
      const scale = files / plan.files;
      test(`${plan.language}: ${files} files of seed ${seed}`, async (context) => {
        const state = await grammars.load(plan.language);
        if (state.state !== 'loaded') throw new Error(`no ${plan.language} grammar: ${state.reason}`);
        const searchRules = options.rules(plan.language);
        const seen = new Set<string>();
        const failures: string[] = [];
        let clean = 0;
        let partial = 0;
        for (let index = 0; index < files; index++) {
          const file = options.make(plan.language, seed, index);
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
          `${failures.length} searches found other matches on a region parse than on the whole parse; file text: ${options.makeName}('${plan.language}', ${seed}, index).text\n${failures.slice(0, shown).join('\n')}${failures.length > shown ? `\n… and ${failures.length - shown} more` : ''}`,
        );
        const minClean = Math.floor(plan.minClean * scale);
        const minPartial = Math.floor(plan.minPartial * scale);
        assert.ok(clean >= minClean, `${plan.language}: only ${clean} of ${files} files parse cleanly whole (expected at least ${minClean})`);
        assert.ok(partial >= minPartial, `${plan.language}: only ${partial} searches parsed part of a file (expected at least ${minPartial})`);
        context.diagnostic(`${plan.language}: ${clean} clean files, ${partial} partial parses`);
      });
    }
  });
}
