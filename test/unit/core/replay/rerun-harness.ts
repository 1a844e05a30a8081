/**
 * What the re-run tests share: a git repository with one commit, a run recorded for real by a
 * ConversationSession (file tools, every call approved) on the fake model server, and the deps
 * rerunFrom needs — the fake server's Anthropic endpoint for any model, file tools rooted in the
 * re-run's place, a real sql.js store for the new recording.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createLlmClient } from '../../../../src/core/llm/create-llm-client';
import type { ApprovalGate } from '../../../../src/core/policy/approval';
import type { RerunDeps } from '../../../../src/core/replay/rerun-run';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import { gitHead } from '../../../../src/node/git-head';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import type { SqlJsStore } from '../../../../src/store/sqljs-store';
import type { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { tempWorkspace } from '../session/fork-harness';
import { recordedSession, RECORDING } from './recording-harness';

export const APPROVE_ALL: ApprovalGate = { request: async () => ({ approved: true, source: 'user' }) };

export function git(root: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  }).trim();
}

/** A repository with `files` committed on main; its commit. */
export function committedRepository(files: Record<string, string>): { root: string; commit: string } {
  const root = tempWorkspace(files);
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '.');
  git(root, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'start');
  return { root, commit: git(root, 'rev-parse', 'HEAD') };
}

export function tempFolder(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `openagent-rerun-${prefix}-`)));
}

/** Records `prompt` in `root` (file tools, approvals all yes, the real git HEAD) into `store`. */
export async function recordIn(server: FakeModelServer, store: SqlJsStore, root: string, prompt: string) {
  const workspace = new NodeWorkspace(root);
  const recorded = recordedSession(server, store, {
    workspace: () => workspace,
    workspaceRoot: () => root,
    tools: (tracked?: unknown) => createFileTools((tracked as NodeWorkspace | undefined) ?? workspace),
    approvals: APPROVE_ALL,
    recording: { ...RECORDING, head: gitHead },
  });
  await recorded.run(prompt);
  return recorded;
}

/** rerunFrom's deps against the fake server (Anthropic wire), tools rooted in `root`. */
export function rerunDeps(server: FakeModelServer, store: SqlJsStore, root: string, id: string): RerunDeps {
  let now = 50_000;
  return {
    modelClient: ({ provider, model }) => {
      const setup = createLlmClient({ provider, model, baseUrl: server.anthropicBaseUrl }, 'k');
      if (!setup.ok) throw new Error(setup.message);
      return setup.client;
    },
    tools: createFileTools(new NodeWorkspace(root)),
    place: { kind: 'worktree', root },
    approvals: APPROVE_ALL,
    recordings: store.recordings,
    newId: () => id,
    clock: { now: () => (now += 1) },
    product: '0.1.0-test',
  };
}
