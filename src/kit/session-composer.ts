/**
 * One session composed for where it works (SPEC 5b, issue 33): the window's workspace, or a git
 * worktree. Every part that touches files or runs commands is a value made for the place — the
 * files and their checkpoints, the sandbox whose writable root it is, the shell and its
 * "OpenAgent: <session>" terminal, search, background jobs — so a worktree session is composed
 * exactly like the window's own, never special-cased. What the window shares (policy, budgets,
 * the store, MCP servers, hooks, extension tools, the team) comes in as `WindowParts`.
 *
 * VS Code serves language features (definitions, references, symbols) for the folders it has
 * open only: a worktree session has no navigation tools, and its system prompt says where it works.
 */
import * as vscode from 'vscode';
import { ConversationSession, type ConversationSessionDeps } from '../core/session/conversation-session';
import type { WorkPlace } from '../core/session/work-place';
import { createWorkspaceTools } from '../core/tools/builtin/workspace-tools';
import type { AnyTool } from '../core/tools/tool';
import type { CodeNavigation, ImageFiles } from '../core/ports';
import { ChildProcessRunner } from '../node/child-process-runner';
import { ChildProcessShell } from '../node/child-process-shell';
import { OsSandbox, type SandboxSettings } from '../node/sandbox/os-sandbox';
import { RipgrepSearch } from '../node/ripgrep-search';
import { EditReview } from '../core/review/edit-review';
import { NotificationApprovalGate } from '../host/approvals/notification-approval-gate';
import { VscodeReviewedFiles } from '../host/review/vscode-reviewed-files';
import type { ApprovalDetails } from '../host/approvals/approval-details';
import { filesExcludeGlobs } from '../host/settings';
import { TERMINAL_NAME, TerminalShell } from '../host/terminal/terminal-shell';
import { VscodeWorkspace } from '../host/workspace/vscode-workspace';
import type { EditorTeamApprovals } from './team-approvals-wiring';

/** What every session of the window shares: all of a session's deps but the place's own. */
export type WindowParts = Omit<
  ConversationSessionDeps,
  'workspaceRoot' | 'workspace' | 'tools' | 'processRunner' | 'sandbox' | 'approvals' | 'systemPrompt'
> & {
  /** The sandbox settings of the window (mode, network, passed variables, hidden folders). */
  sandbox: Omit<SandboxSettings, 'root'>;
  /** The ripgrep program VS Code ships. */
  ripgrep: string;
  /** The editor's language features (the workspace's session only). */
  navigation: CodeNavigation;
  approvalDetails: ApprovalDetails;
  /** The knowledge tools (memory, skills) and the window's tools beside the built-in ones. */
  extraTools(builtIn: readonly AnyTool[]): AnyTool[];
  knowledgeTools(): AnyTool[];
  /** The system prompt for a session working in `root`. */
  systemPrompt(root: string | undefined): ReturnType<ConversationSessionDeps['systemPrompt']>;
  /** Pictures read_file returns as images (image-wiring.ts). */
  imageFiles?: ImageFiles;
  /** Named approvers (issue 37): calls a team rule gives to a teammate wait for their decision. */
  teamApprovals?: EditorTeamApprovals;
};

/** A session and the parts made for its place (the window shows the sandbox's state of its own). */
export interface ComposedSession {
  session: ConversationSession;
  sandbox: OsSandbox;
  /** Its approvals: showing the session again shows its waiting questions again. */
  approvals: NotificationApprovalGate;
  /** The review of its edits, hunk by hunk, on the files of its own folder. */
  review: EditReview;
  /** The folder it works in, as it is now. */
  root(): string | undefined;
  /** Closes the session's terminal and ends what runs in it. */
  dispose(): void;
}

export function composeSession(place: WorkPlace, name: string, window: WindowParts): ComposedSession {
  const {
    sandbox: sandboxOptions,
    ripgrep,
    navigation,
    approvalDetails,
    extraTools,
    knowledgeTools,
    imageFiles,
    teamApprovals,
    ...shared
  } = window;
  const root = place.root;
  const workspaceRoot = () => (place.kind === 'workspace' ? currentFolder() : root);
  const here = place.kind === 'workspace';
  // Commands run confined where the OS allows, writable only in the session's own folder.
  const sandbox = new OsSandbox({ ...sandboxOptions, root: workspaceRoot });
  const terminal = new TerminalShell(
    new ChildProcessShell(undefined, sandbox),
    workspaceRoot,
    sandbox,
    here ? TERMINAL_NAME : `${TERMINAL_NAME}: ${name}`,
  );
  const search = new RipgrepSearch(ripgrep, filesExcludeGlobs, workspaceRoot);
  const workspace = () => {
    const folder = workspaceRoot();
    return folder ? new VscodeWorkspace(folder) : undefined;
  };
  const approvals = new NotificationApprovalGate({
    showDetails: approvalDetails.showIn(workspace),
    ...(here ? {} : { sessionName: name }),
  });
  const session = new ConversationSession({
    ...shared,
    ...(shared.recording ? { recording: { ...shared.recording, placeKind: place.kind } } : {}),
    workspaceRoot,
    workspace,
    sandbox,
    processRunner: new ChildProcessRunner(undefined, sandbox),
    approvals: teamApprovals ? teamApprovals.gate(approvals, { root: workspaceRoot, workspace }) : approvals,
    ...(teamApprovals && shared.toolPolicy
      ? { toolPolicy: teamApprovals.policy(shared.toolPolicy, workspaceRoot) }
      : {}),
    systemPrompt: () => window.systemPrompt(workspaceRoot()),
    prepare: async () => {
      // Whether commands can be confined is known before the first command, without blocking.
      void sandbox.probeInBackground();
      await shared.prepare?.();
    },
    tools: (files) => {
      const builtIn = files
        ? createWorkspaceTools({
            files,
            search,
            shell: terminal,
            cwd: workspaceRoot,
            // VS Code's language features answer for its open folders, not for a worktree.
            ...(here ? { navigation } : {}),
            knowledge: knowledgeTools(),
            images: imageFiles,
          })
        : knowledgeTools();
      return [...builtIn, ...extraTools(builtIn)];
    },
  });
  if (teamApprovals) session.onEvent(teamApprovals.record);
  // Keep and Undo act on this session's files only: an undo writes in its own folder.
  const review = new EditReview({ session, files: new VscodeReviewedFiles(), root: workspaceRoot });
  return {
    session,
    sandbox,
    approvals,
    review,
    root: workspaceRoot,
    dispose: () => {
      review.dispose();
      terminal.dispose();
    },
  };
}

/** The window's first folder, as it is now (a window may open one later). */
function currentFolder(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}
