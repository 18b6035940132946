// The small TypeScript repository the editor and agent clients are tested on: src/util.ts
// defines greet (returning a "Hello World" string), src/app.ts imports and calls it.
import { gitInit, writeFixture } from './fixture.js';

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
