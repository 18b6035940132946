// The small TypeScript repository the editor and agent clients are tested on: src/util.ts
// defines greet (returning a "Hello World" string), src/app.ts imports and calls it; and the
// environment an editor test runs in (the repo, how to start the daemon, a private cache).
import { gitInit, tempDir, writeFixture } from './fixture.js';
import { cliMain } from './raw-client.js';

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
