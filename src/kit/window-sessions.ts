/**
 * The window's sessions wired into the editor (issue 33): the registry of sessions, each
 * composed for its place; the session list view; the chat, the developer panel and the status
 * bar following the shown session; and the commands that start and show sessions.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentPolicy } from '../core/policy/agent-policy';
import type { ChatKeeper } from '../core/session/chat-keeper';
import type { ConversationSession } from '../core/session/conversation-session';
import { SessionRegistry } from '../core/session/session-registry';
import type { WorkPlace } from '../core/session/work-place';
import type { ChatViewProvider } from '../host/chat/chat-view-provider';
import { windowChatKeeping, windowWorkspace } from '../host/chat/chat-keeping';
import type { CommandHandler } from '../host/commands/palette';
import type { DeveloperPanel } from '../host/panel/developer-panel';
import { openAcrossSessions } from '../host/panel/panel-forks';
import type { WorktreeDiff } from '../host/chat/mention-sources';
import { SessionListView, SHOW_SESSION_COMMAND } from '../host/sessions/session-list-view';
import { withPendingApprovals } from '../host/sessions/pending-approvals';
import { sessionReviewsOf, type SessionReviews } from '../host/review/session-reviews';
import { runSetup, sessionCommands, type WorktreeSetupRunner } from '../host/sessions/session-commands';
import { createForkPlacer, type ForkPlacer } from '../host/sessions/fork-placer';
import { forkPlacePrompts } from '../host/sessions/fork-place-prompts';
import { NodeForkFiles } from '../node/worktrees/fork-files';
import { GitWorktrees } from '../node/worktrees/git-worktrees';
import { runWorktreeSetup, worktreeSetup } from '../node/worktrees/worktree-setup';
import type { AgentStatusBar } from '../host/status-bar';
import type { OsSandbox } from '../node/sandbox/os-sandbox';
import { composeSession, type ComposedSession, type WindowParts } from './session-composer';

export interface WindowSessionsDeps {
  context: vscode.ExtensionContext;
  windowParts: WindowParts;
  /** The window's own session, composed for the workspace. */
  here: ComposedSession;
  keeper: ChatKeeper;
  chatView: ChatViewProvider;
  developerPanel: DeveloperPanel;
  statusBar: AgentStatusBar;
  /** The policy in force (its `worktree.setup`). */
  policy(): AgentPolicy | undefined;
  /** The window's folder, as it is now. */
  workspaceRoot(): string | undefined;
}

export interface WindowSessions {
  registry: SessionRegistry;
  /** The session list's rows (the activation code registers the view). */
  list: SessionListView;
  /** The session the chat shows (the palette's commands act on it). */
  shown(): ConversationSession;
  commands: Record<string, CommandHandler>;
  /** Each session's review of its own edits (the editor's Keep / Undo reach the right one). */
  reviews: SessionReviews;
  /** "Fork from here": where the fork goes (the chat's actions call it). */
  placeFork: ForkPlacer;
  /** The uncommitted diffs of the worktree session working in `root` (the `@git` mention). */
  worktreeDiff: WorktreeDiff;
  dispose(): Promise<void>;
}

export function createWindowSessions(deps: WindowSessionsDeps): WindowSessions {
  const { context, windowParts, here, keeper, chatView, developerPanel, statusBar } = deps;
  const composed = new Map<ConversationSession, ComposedSession>([[here.session, here]]);
  // One repository's worktrees per window, made when first needed (a folder opened later counts).
  let worktrees: { root: string; port: GitWorktrees } | undefined;
  const worktreesNow = () => {
    const root = deps.workspaceRoot();
    if (!root) return undefined;
    if (worktrees?.root !== root)
      worktrees = { root, port: new GitWorktrees({ workspaceRoot: root, baseFolder: () => worktreesFolder(context) }) };
    return worktrees.port;
  };
  const registry = new SessionRegistry(
    {
      compose: (place: WorkPlace, name: string) => {
        const parts = composeSession(place, name, windowParts);
        composed.set(parts.session, parts);
        return parts.session;
      },
      keeping: windowChatKeeping(context, 'sessions'),
      workspace: windowWorkspace(),
      exists: async (root) => fs.promises.stat(root).then((stat) => stat.isDirectory()),
      newId: randomUUID,
      onKeepError: (error) => console.warn('OpenAgent could not keep the list of sessions:', error),
      countChanges: async (place) => (await worktreesNow()?.changes(place.worktree))?.length,
    },
    { session: here.session, root: deps.workspaceRoot() },
  );
  const sandboxOf = (session: ConversationSession): OsSandbox | undefined => composed.get(session)?.sandbox;
  // A fork clicked in the panel's Forks tab: the session already showing it comes forward.
  developerPanel.openConversationsWith(openAcrossSessions(registry));

  // The chat, the panel and the status bar show one session: the one chosen in the list.
  const stops = [
    registry.onDidShow((entry) => {
      const isHere = entry.session === here.session;
      chatView.show(entry.session, isHere ? keeper : undefined);
      developerPanel.follow(entry.session, sandboxOf(entry.session));
      statusBar.follow(entry.session, sandboxOf(entry.session));
    }),
    registry.onDidChange(() => {
      // Every session counts, the shown one too: the item's own state says which one is shown.
      const counts = { running: 0, waiting: 0, sessions: registry.list().length };
      for (const view of registry.list()) {
        if (view.state === 'running') counts.running++;
        if (view.state === 'waiting') counts.waiting++;
      }
      statusBar.countSessions(counts);
      // A session ended (applied, kept, discarded): its terminal goes with it.
      const live = new Set(registry.list().map((view) => registry.get(view.id)?.session));
      for (const [session, parts] of composed)
        if (session !== here.session && !live.has(session)) {
          parts.dispose();
          composed.delete(session);
        }
    }),
  ];
  const list = new SessionListView(registry);
  context.subscriptions.push(list);
  // The kept sessions come back when the list is first needed (nothing is read at activation).
  void registry.restore();

  const focusChat = () => vscode.commands.executeCommand('openagent.focusChat');
  const setup: WorktreeSetupRunner = {
    start: (root) => {
      const found = worktreeSetup(root, deps.policy());
      if (!found) return undefined;
      return { command: found.command, done: runWorktreeSetup(root, found, windowParts.sandbox) };
    },
  };
  const commands = sessionCommands(
    { registry, worktrees: worktreesNow, workspaceRoot: deps.workspaceRoot, focusChat, setup },
    context,
  );
  // "Fork from here" asks where: here, or a new worktree session holding the files as they were.
  const placeFork = createForkPlacer({
    registry,
    worktrees: worktreesNow,
    files: (sourceRoot) => new NodeForkFiles(sourceRoot),
    workspaceRoot: deps.workspaceRoot,
    prompts: forkPlacePrompts,
    setUp: (entry, worktree) => runSetup({ setup }, entry, worktree),
    focusChat,
  });

  const reviews = sessionReviewsOf(registry, (session) => composed.get(session));

  return {
    registry,
    list,
    shown: () => registry.shown.session,
    // Showing a session shows its waiting approvals again (they may have hidden in the center).
    commands: withPendingApprovals(
      commands,
      SHOW_SESSION_COMMAND,
      registry,
      (session) => composed.get(session)?.approvals,
    ),
    reviews,
    placeFork,
    worktreeDiff: async (root) => {
      const place = registry.list().find((view) => view.place.kind === 'worktree' && view.place.root === root)?.place;
      if (place?.kind !== 'worktree') return undefined;
      return worktreesNow()?.uncommittedDiff(place.worktree);
    },
    dispose: async () => {
      for (const stop of stops) stop();
      reviews.dispose();
      await registry.flush();
      await registry.dispose();
      for (const [session, parts] of composed) if (session !== here.session) parts.dispose();
    },
  };
}

/** Where new worktrees are made: the setting, else this workspace's own storage of the extension. */
export function worktreesFolder(context: vscode.ExtensionContext): string {
  const set = vscode.workspace.getConfiguration('openagent').get<string>('worktreesFolder', '').trim();
  if (set) return set.startsWith('~') ? path.join(os.homedir(), set.slice(1)) : set;
  const storage = context.storageUri ?? context.globalStorageUri;
  return path.join(storage.fsPath, 'worktrees');
}
