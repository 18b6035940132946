// When a question stops waiting for an index's build (src/daemon/build-pace.ts): a table of
// builds, each with its progress, what was done when the wait began, and how long it has waited.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCannotFinish, paceMinRemaining } from '../../src/daemon/build-pace.js';

const cases: Array<{
  name: string;
  progress: { done: number; total: number };
  doneAtStart: number;
  elapsedMs: number;
  waitMs: number;
  files?: number;
  stop: boolean;
}> = [
  {
    name: "the kernel's ranking from nothing: 64 of 78,484 in 1 s",
    progress: { done: 64, total: 78_484 },
    doneAtStart: 0,
    elapsedMs: 1_000,
    waitMs: 5_000,
    stop: true,
  },
  { name: 'no file done in 1 s of a large build', progress: { done: 0, total: 50_000 }, doneAtStart: 0, elapsedMs: 1_000, waitMs: 5_000, stop: true },
  {
    name: 'a large build about to end: waited for',
    progress: { done: 48_000, total: 50_000 },
    doneAtStart: 40_000,
    elapsedMs: 1_000,
    waitMs: 5_000,
    stop: false,
  },
  {
    name: 'a small build, however slow its start',
    progress: { done: 0, total: paceMinRemaining - 1 },
    doneAtStart: 0,
    elapsedMs: 2_000,
    waitMs: 5_000,
    stop: false,
  },
  { name: 'too early to read a pace', progress: { done: 0, total: 50_000 }, doneAtStart: 0, elapsedMs: 100, waitMs: 5_000, stop: false },
  { name: 'no total known yet, and no file count', progress: { done: 0, total: 0 }, doneAtStart: 0, elapsedMs: 1_000, waitMs: 5_000, stop: false },
  {
    name: "nothing reported in 1 s by a cold build of the kernel's 78,491 files",
    progress: { done: 0, total: 0 },
    doneAtStart: 0,
    elapsedMs: 1_000,
    waitMs: 5_000,
    files: 78_491,
    stop: true,
  },
  {
    name: 'nothing reported yet by a cold build of a small workspace',
    progress: { done: 0, total: 0 },
    doneAtStart: 0,
    elapsedMs: 1_000,
    waitMs: 5_000,
    files: 600,
    stop: false,
  },
  {
    name: 'a reported total wins over the file count',
    progress: { done: 4_900, total: 5_000 },
    doneAtStart: 4_000,
    elapsedMs: 1_000,
    waitMs: 5_000,
    files: 78_491,
    stop: false,
  },
];

for (const { name, progress, doneAtStart, elapsedMs, waitMs, files, stop } of cases)
  test(name, () => assert.equal(buildCannotFinish(progress, doneAtStart, elapsedMs, waitMs, files), stop));
