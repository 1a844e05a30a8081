/**
 * The commands of sessions (SPEC 5b): New Session (here, or in a new git worktree, whose setup
 * then runs once, confined, its output in an output channel), Show Session, and a worktree
 * session's Review, Apply, Keep Branch and Discard (worktree-commands.ts). They take an argument
 * from the session list's row (its id) or, from the palette, act on the shown session.
 * "New Session" also takes `{ name, where: 'here' | 'worktree', baseBranch? }`, so a keybinding,
 * another extension or a test can start one without the prompts.
 */
import * as vscode from 'vscode';
import type { SessionEntry, SessionRegistry } from '../../core/session/session-registry';
import type { WorkPlace } from '../../core/session/work-place';
import { WorktreeError, type Worktree, type Worktrees } from '../../core/session/worktree-port';
import { visibleText } from '../../core/text/visible-text';
import type { CommandHandler } from '../commands/palette';
import { SHOW_SESSION_COMMAND } from './session-list-view';
import {
  applyWorktree,
  discardWorktree,
  keepWorktree,
  ORIGINAL_SCHEME,
  OriginalFiles,
  reviewWorktree,
  type FinishingDeps,
} from './worktree-commands';

export interface NewSessionRequest {
  name?: string;
  where?: 'here' | 'worktree';
  baseBranch?: string;
}

/** The setup a new worktree runs once (the policy's `worktree.setup`, or its script). */
export interface WorktreeSetupRunner {
  /** Undefined when there is none; else runs it and resolves with its outcome. */
  start(root: string): { command: string; done: Promise<{ ok: boolean; summary: string; output: string }> } | undefined;
}

export interface SessionCommandsDeps {
  registry: SessionRegistry;
  /** The workspace's repository's worktrees; undefined in a window without a folder. */
  worktrees(): Worktrees | undefined;
  setup: WorktreeSetupRunner;
  workspaceRoot(): string | undefined;
  focusChat(): Thenable<unknown>;
}

const shown = (text: string) => visibleText(text, { keepNewlines: false });

export function sessionCommands(
  deps: SessionCommandsDeps,
  context: vscode.ExtensionContext,
): Record<string, CommandHandler> {
  const { registry } = deps;
  const originals = new OriginalFiles(deps.worktrees);
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, originals));
  const finishing: FinishingDeps = {
    worktrees: deps.worktrees,
    endSession: async (worktree) => {
      const entry = registry.list().find((view) => view.place.kind === 'worktree' && view.place.root === worktree.root);
      if (entry) await registry.remove(entry.id);
    },
  };
  /** The worktree session a command is for: the row's, else the shown one, else one picked. */
  const worktreeOf = async (id?: string): Promise<Worktree | undefined> => {
    const entry = id ? registry.get(id) : registry.shown;
    if (entry?.place.kind === 'worktree') return entry.place.worktree;
    const choices = registry
      .list()
      .filter((view) => view.place.kind === 'worktree')
      .map((view) => ({ label: view.name, description: view.state, id: view.id }));
    if (choices.length === 0) {
      void vscode.window.showInformationMessage('No session works in a worktree: start one with New Session.');
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(choices, { title: 'Which session?' });
    const chosen = picked && registry.get(picked.id);
    return chosen?.place.kind === 'worktree' ? chosen.place.worktree : undefined;
  };
  const reporting =
    (run: (worktree: Worktree) => Promise<void>) =>
    async (id?: string): Promise<void> => {
      const worktree = await worktreeOf(typeof id === 'string' ? id : undefined);
      if (!worktree) return;
      try {
        await run(worktree);
      } catch (error) {
        void vscode.window.showErrorMessage(`OpenAgent: ${shown(describe(error))}`);
      }
    };

  return {
    [SHOW_SESSION_COMMAND]: async (id?: string) => {
      const chosen = typeof id === 'string' ? id : await pickSession(registry);
      if (!chosen || !registry.get(chosen)) return;
      registry.show(chosen);
      await deps.focusChat();
    },
    'openagent.newSession': async (request?: NewSessionRequest) => {
      const entry = await newSession(deps, request ?? {});
      if (!entry) return undefined;
      registry.show(entry.id);
      await deps.focusChat();
      return entry.id;
    },
    'openagent.reviewSession': reporting(async (worktree) => {
      const worktrees = deps.worktrees();
      if (worktrees) await reviewWorktree(worktrees, worktree, originals);
    }),
    'openagent.applySession': reporting((worktree) => applyWorktree(finishing, worktree)),
    'openagent.keepSessionBranch': reporting((worktree) => keepWorktree(finishing, worktree)),
    'openagent.discardSession': reporting((worktree) => discardWorktree(finishing, worktree)),
  };
}

async function newSession(deps: SessionCommandsDeps, request: NewSessionRequest): Promise<SessionEntry | undefined> {
  const name =
    request.name ??
    (await vscode.window.showInputBox({
      title: 'New Session',
      prompt: 'A name for the session (shown in the session list and its approvals)',
      placeHolder: 'e.g. Fix the login redirect',
      validateInput: (text) => (text.trim() ? undefined : 'Give the session a name.'),
    }));
  if (name === undefined) return undefined;
  const where =
    request.where ??
    (
      await vscode.window.showQuickPick(
        [
          { label: 'Here', description: 'in the workspace, beside the other sessions', where: 'here' as const },
          {
            label: 'In a new worktree',
            description: 'its own folder and branch openagent/…, from your current HEAD',
            where: 'worktree' as const,
          },
        ],
        { title: `Where does “${shown(name)}” work?` },
      )
    )?.where;
  if (!where) return undefined;
  try {
    if (where === 'here') return deps.registry.create(name, { kind: 'workspace', root: deps.workspaceRoot() });
    const worktrees = deps.worktrees();
    if (!worktrees) throw new Error('A worktree needs a folder open in a git repository.');
    const created = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Making a worktree for “${shown(name)}”…` },
      () => worktrees.create({ name, ...(request.baseBranch ? { baseBranch: request.baseBranch } : {}) }),
    );
    const { worktree } = created;
    const place: WorkPlace = { kind: 'worktree', root: worktree.root, worktree };
    const entry = deps.registry.create(name, place);
    if (created.notices.length > 0)
      void vscode.window.showInformationMessage(created.notices.map((notice) => shown(notice)).join(' '));
    runSetup(deps, entry, worktree);
    return entry;
  } catch (error) {
    const offer = error instanceof WorktreeError && error.kind === 'not-a-repository' ? ['Start Here Instead'] : [];
    const choice = await vscode.window.showErrorMessage(
      `OpenAgent could not start the session: ${shown(describe(error))}`,
      ...offer,
    );
    if (choice === 'Start Here Instead')
      return deps.registry.create(name, { kind: 'workspace', root: deps.workspaceRoot() });
    return undefined;
  }
}

/** The worktree's setup, once, in the background: its output in a channel, a failure told. */
export function runSetup(deps: Pick<SessionCommandsDeps, 'setup'>, entry: SessionEntry, worktree: Worktree): void {
  const started = deps.setup.start(worktree.root);
  if (!started) return;
  const channel = vscode.window.createOutputChannel(`OpenAgent: ${shown(entry.name)} setup`);
  channel.appendLine(`$ ${started.command}`);
  void vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: `Setting up “${shown(entry.name)}”: ${started.command}` },
    async () => {
      const outcome = await started.done;
      channel.append(outcome.output);
      channel.appendLine(`\n${outcome.summary}`);
      if (outcome.ok) return;
      const choice = await vscode.window.showWarningMessage(
        `The setup of “${shown(entry.name)}” failed: ${shown(outcome.summary)} The session can still be used or discarded.`,
        'Show Output',
        'Discard Session',
      );
      if (choice === 'Show Output') channel.show();
      if (choice === 'Discard Session') await vscode.commands.executeCommand('openagent.discardSession', entry.id);
    },
  );
}

async function pickSession(registry: SessionRegistry): Promise<string | undefined> {
  const picked = await vscode.window.showQuickPick(
    registry.list().map((view) => ({ label: view.name, description: view.state, id: view.id })),
    { title: 'Show Session' },
  );
  return picked?.id;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
