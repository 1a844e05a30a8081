/**
 * `openagent --worktree NAME` (SPEC 5b): the CLI works in a git worktree of the current folder's
 * repository, on the branch `openagent/<name>`, outside the folder — the same worktree the
 * editor's sessions make. A worktree of that name already there is worked in again (one whose
 * folder was deleted by hand, or a branch kept without one, gets a folder again); otherwise a new
 * one starts from HEAD, and its setup (`worktree.setup` in the policy, or the worktree's
 * `.openagent/worktree-setup`) runs once, confined, its output on stderr. Finishing is the
 * editor's (Review, Apply, Keep Branch, Discard) or git's own.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import type { CreatedWorktree, ListedWorktree, Worktree } from '../core/session/worktree-port';
import { parseAgentPolicy, type AgentPolicy } from '../core/policy/agent-policy';
import { stricterSandbox, type SandboxMode } from '../core/policy/sandbox-modes';
import { readPolicyText } from '../node/policy-text';
import { GitWorktrees } from '../node/worktrees/git-worktrees';
import { displayName, sessionSlug } from '../node/worktrees/worktree-names';
import { runWorktreeSetup, worktreeSetup } from '../node/worktrees/worktree-setup';

export interface WorktreePlaceOptions {
  /** The folder the CLI was started in (in the repository). */
  cwd: string;
  /** Where new worktrees are made: OPENAGENT_WORKTREES, else ~/.openagent/worktrees. */
  baseFolder: string;
  policy(root: string): Promise<AgentPolicy | undefined>;
  sandbox: { mode(): SandboxMode; network(): boolean; passEnv(): readonly string[] };
  /** Status lines and the setup's output (stderr). */
  say(line: string): void;
}

/** The worktree the CLI works in; throws (a WorktreeError, clear) when there can be none. */
export async function enterWorktree(name: string, options: WorktreePlaceOptions): Promise<Worktree> {
  const worktrees = new GitWorktrees({ workspaceRoot: options.cwd, baseFolder: () => options.baseFolder });
  const known = (await worktrees.list()).find((listed) => isNamed(listed, name));
  if (known?.state === 'ready') {
    options.say(`Working in the worktree ${known.worktree.root} on ${known.worktree.branch} again.`);
    return known.worktree;
  }
  const made: CreatedWorktree = known ? await worktrees.reopen(known) : await worktrees.create({ name });
  const { worktree } = made;
  options.say(
    `Working in the worktree ${worktree.root} on ${worktree.branch} (from ${worktree.base.commit.slice(0, 8)}${
      worktree.base.branch ? ` on ${worktree.base.branch}` : ''
    }).`,
  );
  for (const notice of made.notices) options.say(notice);
  if (!known) await setUpWorktree(worktree, options);
  return worktree;
}

/** The worktree the editor or an earlier run made for `name`: same display name, or its branch. */
function isNamed(listed: ListedWorktree, name: string): boolean {
  const { worktree } = listed;
  return worktree.name === displayName(name) || worktree.branch === `openagent/${sessionSlug(name)}`;
}

/** Runs the worktree's setup once (its output and outcome said), for a worktree just made. */
export async function setUpWorktree(worktree: Worktree, options: WorktreePlaceOptions): Promise<void> {
  const setup = worktreeSetup(worktree.root, await options.policy(worktree.root));
  if (!setup) return;
  options.say(`Setting up the worktree: ${setup.command}`);
  const outcome = await runWorktreeSetup(worktree.root, setup, options.sandbox);
  if (outcome.output) options.say(outcome.output.trimEnd());
  options.say(
    outcome.ok
      ? outcome.summary
      : `${outcome.summary} The worktree can still be used; git worktree remove ${path.basename(worktree.root)} discards it.`,
  );
}

/** What --worktree needs from the CLI's options: where worktrees go, the policy, the sandbox. */
export function worktreeOptions(
  options: { sandbox: SandboxMode },
  env: NodeJS.ProcessEnv,
  output: { error(line: string): void },
): WorktreePlaceOptions {
  const home = env.HOME || os.homedir();
  const userPolicy = policyAt(path.join(home, '.openagent', 'agent.yaml'));
  return {
    cwd: process.cwd(),
    baseFolder: env.OPENAGENT_WORKTREES || path.join(home, '.openagent', 'worktrees'),
    // The setup command is the repository's (or the user's); the network is the user's to grant.
    policy: async (root) => policyAt(path.join(root, '.openagent', 'agent.yaml')) ?? userPolicy,
    sandbox: {
      mode: () => stricterSandbox(options.sandbox, userPolicy?.sandbox) ?? 'auto',
      network: () => userPolicy?.commands?.network === true,
      passEnv: () => userPolicy?.commands?.pass_env ?? [],
    },
    say: (line) => output.error(line),
  };
}

/** A policy file's policy; undefined when it is missing or has mistakes (they apply nothing). */
function policyAt(file: string): AgentPolicy | undefined {
  const read = readPolicyText(file);
  return read.kind === 'text' ? parseAgentPolicy(read.text).policy : undefined;
}
