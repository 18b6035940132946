// The code-search fixture repository (test/fixtures/search/repo: a payments module, login
// sessions, retries, a cache, a test file), copied to a fresh git repository for each use.
import fs from 'node:fs';
import path from 'node:path';
import { gitInit, tempDir } from './fixture.js';

export const searchFixtures = path.resolve(import.meta.dirname, '../../../test/fixtures/search');

export function searchFixtureRepo(prefix = 'fathom-search-'): string {
  const root = tempDir(prefix);
  fs.cpSync(path.join(searchFixtures, 'repo'), root, { recursive: true });
  gitInit(root);
  return root;
}
