// Lint: ESLint's flat config: its recommended rules and typescript-eslint's type-checked ones over src/, test/ and
// bench/ (tsconfig.json's files, through its project service). Prettier owns the format
// (.prettierrc.json); nothing here is about layout. `npm run lint` runs both; `npm test` runs it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'grammars/', 'models/', 'model/', 'clients/', 'test/fixtures/', 'eslint.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] },
          ],
        },
      ],
      // tsconfig has no noUncheckedIndexedAccess, so `list[i]!` reads as unnecessary; the `!` stays
      // where an indexed read is known to hit (what that option would ask for).
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // An async function that need not await keeps `async`: a throw in it rejects, as its callers expect.
      '@typescript-eslint/require-await': 'off',
      // A leading underscore names what is left out on purpose (a destructured field, a parameter a signature needs).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // Tests and benchmarks read answers parsed from JSON (any) field by field; the code under test may not.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  // The command's shim is plain JavaScript outside tsconfig.json: linted without types.
  {
    files: ['bin/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { process: 'readonly' } },
  },
);
