// Staged rewrites: a plan (the new content of each file, and the content it was computed from) is
// kept under a random token until it is applied, discarded or expires. Applying writes all files
// or none: every file's content now must equal the content recorded at staging (one mismatch —
// an edit, a formatter, another rewrite, unsaved editor changes — refuses the whole plan and names
// the drifted files); each file is written atomically (temp file + rename, mode kept); a failure
// part-way restores the files already written. A read-only file (no write bit) counts as a
// failure, also for root. Owns the plans and the writing; nothing else here touches user files.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomically as writeAtomically } from '../base/atomic-file.js';
import { FathomError, errorMessage } from '../base/errors.js';
import { assertWritableInside } from '../base/paths.js';

export interface PlannedFile {
  /** Workspace-relative. */
  path: string;
  before: Buffer;
  after: Buffer;
}

export interface Plan {
  token: string;
  root: string;
  files: PlannedFile[];
  createdAt: number;
  expiresAt: number;
}

export interface ApplyResult {
  written: string[];
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export class RewritePlans {
  private readonly plans = new Map<string, Plan>();

  constructor(
    /** How long a plan may wait for apply (default 10 minutes). */
    readonly ttlMs = 10 * 60_000,
    /** Plans kept at most; the oldest goes first. */
    private readonly maxPlans = 32,
  ) {}

  stage(root: string, files: PlannedFile[], now = Date.now()): Plan {
    this.expire(now);
    while (this.plans.size >= this.maxPlans) this.plans.delete(this.plans.keys().next().value!);
    const plan: Plan = { token: randomBytes(16).toString('hex'), root, files, createdAt: now, expiresAt: now + this.ttlMs };
    this.plans.set(plan.token, plan);
    return plan;
  }

  /** The workspace root of a live plan. */
  rootOf(token: string, now = Date.now()): string | undefined {
    this.expire(now);
    return this.plans.get(token)?.root;
  }

  /** Forgets a plan; false when there was none (unknown, expired or applied). */
  discard(token: string): boolean {
    return this.plans.delete(token);
  }

  private expire(now: number): void {
    for (const [token, plan] of this.plans) if (plan.expiresAt <= now) this.plans.delete(token);
  }

  private take(token: string, now: number): Plan {
    this.expire(now);
    const plan = this.plans.get(token);
    if (!plan)
      throw new FathomError(
        'invalidParams',
        `no staged rewrite with token ${JSON.stringify(token.slice(0, 64))}: it was applied, discarded, or expired (plans live ${Math.round(this.ttlMs / 60_000)} minutes)`,
        { field: 'token' },
      );
    return plan;
  }

  /**
   * Applies a plan: all files or none. `unsaved(path)` tells whether an editor holds unsaved changes
   * to a file (then it counts as drifted: writing would lose them or be lost).
   */
  apply(token: string, unsaved: (relativePath: string) => boolean = () => false, now = Date.now()): ApplyResult {
    const plan = this.take(token, now);
    // The plan is used up whatever happens next: a drifted plan must be staged again.
    this.plans.delete(token);
    const drifted: { path: string; reason: string }[] = [];
    const modes = new Map<string, number>();
    for (const file of plan.files) {
      const absolute = path.join(plan.root, file.path);
      try {
        const stat = fs.statSync(absolute);
        modes.set(file.path, stat.mode & 0o7777);
        if (sha256(fs.readFileSync(absolute)) !== sha256(file.before)) drifted.push({ path: file.path, reason: 'changed since the rewrite was staged' });
        else if (unsaved(file.path)) drifted.push({ path: file.path, reason: 'has unsaved changes in an editor' });
      } catch (error) {
        drifted.push({ path: file.path, reason: `cannot be read: ${errorMessage(error)}` });
      }
    }
    if (drifted.length > 0) {
      throw new FathomError(
        'conflict',
        `rewrite not applied: ${drifted.length} of ${plan.files.length} files changed since it was staged (${drifted
          .slice(0, 5)
          .map((entry) => `${entry.path}: ${entry.reason}`)
          .join('; ')}${drifted.length > 5 ? '; …' : ''}); nothing was written, stage it again`,
        { drifted },
      );
    }
    const written: PlannedFile[] = [];
    for (const file of plan.files) {
      const absolute = path.join(plan.root, file.path);
      const mode = modes.get(file.path)!;
      try {
        if ((mode & 0o222) === 0) throw new Error('the file is read-only');
        assertWritableInside(plan.root, absolute);
        writeAtomically(absolute, file.after, mode);
        written.push(file);
      } catch (error) {
        const restored: string[] = [];
        const notRestored: string[] = [];
        for (const done of written.reverse()) {
          try {
            writeAtomically(path.join(plan.root, done.path), done.before, modes.get(done.path)!);
            restored.push(done.path);
          } catch {
            notRestored.push(done.path);
          }
        }
        const detail =
          notRestored.length > 0
            ? `; could NOT restore ${notRestored.join(', ')}`
            : restored.length > 0
              ? `; restored the ${restored.length} files already written`
              : '';
        throw new FathomError('io', `rewrite not applied: writing ${file.path} failed (${errorMessage(error)})${detail}`, {
          path: file.path,
          restored,
          notRestored,
        });
      }
    }
    return { written: written.map((file) => file.path) };
  }
}
