/**
 * The repository as our git commands see it: where its working tree and git folders are (found
 * the way git finds them, by the `.git` above the workspace, but never through `core.worktree`),
 * and which filters and merge drivers its own configuration defines — switched off for our
 * commands, since a filter's smudge or clean command and a merge driver run when files are
 * checked out, added or merged. Filters the user's global or system configuration defines
 * (the usual `git lfs install`) keep working: those are the user's, not the repository's.
 */
import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { realOr } from '../sandbox/quiet-fs';
import { WorktreeError } from '../../core/session/worktree-port';
import type { GitCommand, GitOptions } from './git-command';

/** What each command needs about the repository, read once per operation. */
export interface RepositoryContext {
  layout: RepositoryLayout;
  programs: RepositoryPrograms;
  /** Options for commands on the user's working tree. */
  main: GitOptions;
  git: GitCommand;
}

export interface RepositoryLayout {
  /** The working tree holding the workspace (the folder with the `.git`). */
  workTree: string;
  /** Its git folder (for a linked worktree or submodule, what its `.git` file names). */
  gitDir: string;
  /** The common git folder (the main repository's `.git`). */
  commonDir: string;
}

/** The repository holding `workspaceRoot`; a WorktreeError `not-a-repository` when there is none. */
export function findRepository(workspaceRoot: string): RepositoryLayout {
  let folder: string;
  try {
    folder = realpathSync(workspaceRoot);
  } catch {
    throw new WorktreeError('not-a-repository', `The workspace folder ${workspaceRoot} does not exist.`);
  }
  for (;;) {
    const dotGit = path.join(folder, '.git');
    const stat = lstatOrUndefined(dotGit);
    if (stat?.isDirectory()) return layout(folder, dotGit);
    if (stat?.isFile()) {
      const named = /^gitdir: (.+?)[\r\n]*$/m.exec(readSmall(dotGit))?.[1];
      if (named) return layout(folder, path.resolve(folder, named));
    }
    const parent = path.dirname(folder);
    if (parent === folder)
      throw new WorktreeError(
        'not-a-repository',
        `${workspaceRoot} is not in a git repository, so a session cannot get its own worktree. Run it here, or make the folder a repository (git init) and commit once.`,
      );
    folder = parent;
  }
}

function layout(workTree: string, gitDir: string): RepositoryLayout {
  const real = realOr(gitDir);
  const common = readSmall(path.join(real, 'commondir')).replace(/[\r\n]+$/, '');
  return { workTree, gitDir: real, commonDir: common ? realOr(path.resolve(real, common)) : real };
}

/** Kinds of keys whose value git runs as a program while checking out, adding or merging. */
const FILTER_COMMANDS = ['clean', 'smudge', 'process'] as const;
const SCOPES_OF_THE_REPOSITORY = new Set(['local', 'worktree']);

export interface RepositoryPrograms {
  /** `-c` entries switching off what the repository's own configuration would run. */
  overrides: string[];
  /** Filter names with a command from the user's configuration (global or system). */
  userFilters: Set<string>;
}

/**
 * The overrides for the filters and merge drivers defined in the repository's own
 * configuration (or files it includes): each command is set back to the user's global value,
 * or to nothing (a filter then passes content through; a merge driver `false` leaves the file
 * in conflict, to resolve in the merge editor — nothing is merged silently).
 */
export async function repositoryPrograms(
  git: GitCommand,
  gitDir: string,
  workTree: string,
): Promise<RepositoryPrograms> {
  const { stdout } = await git.run(['config', '--show-scope', '-z', '--get-regexp', '^(filter|merge)\\.'], {
    gitDir,
    workTree,
    okCodes: [1],
    timeoutMs: 60_000,
  });
  const repository = new Map<string, true>();
  const user = new Map<string, string>();
  // `-z`: the scope, NUL, then the key, a line end and the value (none for a bare key), NUL.
  const fields = stdout.split('\0');
  for (let at = 0; at + 1 < fields.length; at += 2) {
    const scope = fields[at]!;
    const [key, value] = splitOnce(fields[at + 1]!, '\n');
    const fromRepository = SCOPES_OF_THE_REPOSITORY.has(scope);
    if (fromRepository) repository.set(key, true);
    else if (scope === 'global' || scope === 'system') user.set(key, value ?? '');
  }
  const overrides: string[] = [];
  const userFilters = new Set<string>();
  for (const key of user.keys()) {
    const filter = /^filter\.(.+)\.(clean|smudge|process)$/.exec(key);
    if (filter) userFilters.add(filter[1]!);
  }
  // A filter and a merge driver may share a name (`filter=evil merge=evil`): both are switched off.
  const sections = new Map<string, { kind: 'filter' | 'merge'; name: string }>();
  for (const key of repository.keys()) {
    const match = /^(filter|merge)\.(.+)\.([^.]+)$/.exec(key);
    if (match) sections.set(`${match[1]}.${match[2]}`, { kind: match[1] as 'filter' | 'merge', name: match[2]! });
  }
  for (const { kind, name } of sections.values()) {
    if (/[=\s\p{Cc}]/u.test(name))
      throw new WorktreeError(
        'git-failed',
        `This repository's configuration defines a ${kind} named ${JSON.stringify(name)} that OpenAgent cannot switch off for its git commands. Remove it from .git/config, or run the session here.`,
      );
    if (kind === 'filter') {
      for (const command of FILTER_COMMANDS)
        overrides.push(`filter.${name}.${command}=${user.get(`filter.${name}.${command}`) ?? ''}`);
      overrides.push(`filter.${name}.required=${user.get(`filter.${name}.required`) ?? 'false'}`);
    } else {
      overrides.push(`merge.${name}.driver=${user.get(`merge.${name}.driver`) ?? 'false'}`);
    }
  }
  return { overrides, userFilters };
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  if (at < 0) return [text, undefined];
  return [text.slice(0, at), text.slice(at + 1)];
}

function lstatOrUndefined(file: string) {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

/** A small regular file's text ('' for anything else): never blocks on a pipe or a device. */
export function readSmall(file: string): string {
  try {
    const stat = lstatSync(file);
    return stat.isFile() && stat.size < 64 * 1024 ? readFileSync(file, 'utf8') : '';
  } catch {
    return '';
  }
}
