// The small TypeScript repository the editor and agent clients are tested on: src/util.ts
// defines greet (returning a "Hello World" string), src/app.ts imports and calls it; and the
// environment an editor test runs in (the repo, how to start the daemon, a private cache); and a
// repository large enough that its first index takes seconds.
import fs from 'node:fs';
import path from 'node:path';
import { gitInit, tempDir, writeFixture } from './fixture.js';
import { cliMain, socketPathIn } from './raw-client.js';

export function editorFixture(): string {
  const root = writeFixture(`
    //- src/util.ts
    export function greet(name: string): string {
    return 'Hello World ' + name;
    }
    //- src/app.ts
    import { greet } from './util';
    export const message = greet('you');
  `);
  gitInit(root);
  return root;
}

/** Environment for an editor run against `root`: its tests read FATHOM_TEST_*; the daemon gets a private cache. */
export function editorTestEnvironment(root: string): NodeJS.ProcessEnv {
  return { ...process.env, FATHOM_TEST_ROOT: root, FATHOM_TEST_NODE: process.execPath, FATHOM_TEST_MAIN: cliMain, FATHOM_CACHE_DIR: tempDir('fathom-cache-') };
}

/**
 * A repository whose first index takes seconds (`files` small TypeScript files, gen/<i % 100>/m<i>.ts
 * defining handler<i>, plus notes.txt to type into): what an editor must not freeze on.
 */
export function largeEditorFixture(files: number): string {
  const root = tempDir();
  fs.writeFileSync(path.join(root, 'notes.txt'), 'notes\n');
  for (let folder = 0; folder < Math.min(100, files); folder++) fs.mkdirSync(path.join(root, 'gen', String(folder)), { recursive: true });
  for (let i = 0; i < files; i++) {
    fs.writeFileSync(path.join(root, 'gen', String(i % 100), `m${i}.ts`), `export function handler${i}(input: number): number {\n  return input * ${i};\n}\n`);
  }
  gitInit(root);
  return root;
}

/** Environment for an editor whose daemon is the user's shared one (`fathom attach`), on a private socket and cache. */
export function attachTestEnvironment(root: string): NodeJS.ProcessEnv & { FATHOM_SOCKET: string } {
  return { ...editorTestEnvironment(root), FATHOM_SOCKET: socketPathIn(), FATHOM_LOG: 'warn' };
}
