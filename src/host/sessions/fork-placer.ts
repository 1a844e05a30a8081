/**
 * "Fork from here" asks where, like New Session (issue 33): here (the chat's own fork, in this
 * workspace) or in a new worktree whose files are as they were at the message
 * (core/session/worktree-fork.ts). A fork into a worktree becomes a session of the window: it
 * appears in the Sessions list, works in the worktree, holds the forked conversation and is
 * shown; the worktree's setup runs once, as for any new worktree session. One fork is made at a
 * time (a second click while one is made is told so). No `vscode` here: the prompts come in as
 * `ForkPlacerPrompts` (fork-place-prompts.ts), so this runs in unit tests.
 */
import type { ForkPlaceRequest } from '../chat/chat-forks';
import type { SessionEntry, SessionRegistry } from '../../core/session/session-registry';
import type { WorkPlace } from '../../core/session/work-place';
import { forkIntoWorktree, type ForkFileAccess, type WorktreeForkOutcome } from '../../core/session/worktree-fork';
import type { Worktree, Worktrees } from '../../core/session/worktree-port';

/** What the placer asks and tells (the editor's quick pick, input box, progress and notifications). */
export interface ForkPlacerPrompts {
  /** Where the fork goes; undefined: the user cancelled. */
  where(): Promise<'here' | 'worktree' | undefined>;
  /** The new session's name, `suggested` filled in; undefined: cancelled. */
  name(suggested: string): Promise<string | undefined>;
  /** Runs `work` with a progress notice. */
  progress<T>(title: string, work: () => Promise<T>): Promise<T>;
  info(text: string): void;
  warning(text: string): void;
  /** An error; with `offerHere`, resolves true when the user chose to fork here instead. */
  error(text: string, offerHere: boolean): Promise<boolean>;
}

export interface ForkPlacerDeps {
  registry: SessionRegistry;
  /** The repository's worktrees; undefined in a window without a folder. */
  worktrees(): Worktrees | undefined;
  /** Reads the forking session's folder and writes the new worktree. */
  files(sourceRoot: string): ForkFileAccess;
  /** The window's folder (where a session "here" works). */
  workspaceRoot(): string | undefined;
  prompts: ForkPlacerPrompts;
  /** Runs the worktree's setup once (session-commands.ts), as for New Session. */
  setUp?(entry: SessionEntry, worktree: Worktree): void;
  focusChat(): PromiseLike<unknown>;
}

export type ForkPlacer = (request: ForkPlaceRequest) => Promise<'here' | 'handled'>;

export function createForkPlacer(deps: ForkPlacerDeps): ForkPlacer {
  let making = false;
  return async (request) => {
    const { prompts } = deps;
    const where = await prompts.where();
    if (where === undefined) return 'handled';
    if (where === 'here') return 'here';
    if (making) {
      prompts.warning('A fork into a worktree is being made: wait for it to finish.');
      return 'handled';
    }
    const title = (await request.session.forks.tree(request.conversationId))?.conversation.title;
    const name = await prompts.name(title ? `${title} (fork)` : 'Fork');
    if (name === undefined || !name.trim()) return 'handled';
    const worktrees = deps.worktrees();
    const source = sourceRoot(deps, request);
    if (!worktrees || !source)
      return (await prompts.error('A fork into a worktree needs a folder open in a git repository.', true))
        ? 'here'
        : 'handled';
    making = true;
    let outcome: WorktreeForkOutcome;
    try {
      outcome = await prompts.progress(`Forking into a new worktree for “${name}”…`, () =>
        forkIntoWorktree(
          { forks: request.session.forks, worktrees, files: deps.files(source) },
          { name, cutSeq: request.cutSeq, conversationId: request.conversationId },
        ),
      );
    } catch (error) {
      outcome = {
        status: 'failed',
        stage: 'worktree',
        message: error instanceof Error ? error.message : String(error),
      };
    } finally {
      making = false;
    }
    if (outcome.status === 'refused') {
      prompts.warning(outcome.message);
      return 'handled';
    }
    if (outcome.status === 'failed') {
      const offerHere = outcome.kind === 'not-a-repository' || outcome.kind === 'no-commits';
      return (await prompts.error(outcome.message, offerHere)) ? 'here' : 'handled';
    }
    const { worktree, fork } = outcome;
    const place: WorkPlace = { kind: 'worktree', root: worktree.root, worktree };
    let entry: SessionEntry;
    try {
      entry = deps.registry.create(name, place);
    } catch (error) {
      // The worktree and the fork are made and kept: the user can open them from git and the history.
      prompts.warning(
        `The fork (“${fork.title}”) and its worktree ${worktree.root} are made, but no session could be added: ${error instanceof Error ? error.message : String(error)}`,
      );
      return 'handled';
    }
    await entry.session.open(fork.id);
    deps.registry.show(entry.id);
    await deps.focusChat();
    prompts.info(outcome.notices.join(' '));
    deps.setUp?.(entry, worktree);
    return 'handled';
  };
}

/** The folder the forking session works in: its place's root, else the window's folder. */
function sourceRoot(deps: ForkPlacerDeps, request: ForkPlaceRequest): string | undefined {
  const view = deps.registry.list().find((candidate) => deps.registry.get(candidate.id)?.session === request.session);
  return view?.place.root ?? deps.workspaceRoot();
}
