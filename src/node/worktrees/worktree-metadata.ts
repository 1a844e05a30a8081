/**
 * What a session worktree remembers beside git's own records: its display name and base, in a
 * small file in the worktree's git folder (`<common>/worktrees/<id>/openagent-session.json`),
 * which git leaves alone and removes with the worktree. Lost with it (git pruned the record),
 * the name falls back to the branch's and the base to where the branch left the user's HEAD.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { WorktreeBase } from '../../core/session/worktree-port';

const FILE = 'openagent-session.json';
const MAX_BYTES = 16 * 1024;

export interface SessionRecord {
  name: string;
  base: WorktreeBase;
  workspaceRoot: string;
}

export function writeRecord(worktreeGitDir: string, record: SessionRecord): void {
  writeFileSync(path.join(worktreeGitDir, FILE), `${JSON.stringify(record)}\n`, { mode: 0o600 });
}

/** The record, or undefined when there is none or it is not one (never trusted beyond its shape). */
export function readRecord(worktreeGitDir: string): SessionRecord | undefined {
  try {
    const text = readFileSync(path.join(worktreeGitDir, FILE), 'utf8');
    if (text.length > MAX_BYTES) return undefined;
    const value = JSON.parse(text) as Partial<SessionRecord>;
    const commit = value.base?.commit;
    if (typeof value.name !== 'string' || typeof commit !== 'string' || !/^[0-9a-f]{40,64}$/.test(commit))
      return undefined;
    const branch = typeof value.base?.branch === 'string' ? value.base.branch : undefined;
    return {
      name: value.name,
      base: branch ? { commit, branch } : { commit },
      workspaceRoot: typeof value.workspaceRoot === 'string' ? value.workspaceRoot : '',
    };
  } catch {
    return undefined;
  }
}
