/**
 * What a shell command can reach beyond what its words say (SPEC 4.1, 4.3), read from the
 * analysis of shell-command.ts. Findings:
 * - reasons: it must be asked about whatever an allow rule, auto-approve or "Always" says — a
 *   path decided at run time (glob, variable, `~`, substitution), a path outside the workspace,
 *   protected or secret (resolved as the kernel does, links before `..`, from the folder a `cd`
 *   moved to), a pattern that matches secret files, a recursive search through folders holding
 *   secrets, options and variables known to run or write something else (program-risks.ts), a
 *   package script after its manifest changed in this conversation;
 * - cautions: shown as a warning, not a routine question (text piped into a shell, the network);
 * - what a confined run would lack: the network, writing the git repository.
 */
import * as path from 'node:path';
import type { CommandAnalysis, CommandSegment, WordFacts } from './shell-command';
import { isProtectedPath, isSecretPath } from './protected-paths';
import { basename } from './shell-wrappers';
import {
  gitWrite,
  hasOption,
  networkUse,
  readsOnly,
  searchesRecursively,
  segmentDangers,
  usesNamesOnly,
} from './program-risks';
import { compileGlob } from '../workspace/glob';
import { isInside, PathError, resolveLikeKernel, type RealPathPort } from '../workspace/workspace-path';

export interface CommandFindings {
  reasons: string[];
  cautions: string[];
  /** Needs the network (asked where confined commands have none). */
  needsNetwork: string[];
  /** Needs to write what confined commands cannot (the git repository). */
  needsOut: string[];
  /** A protected path is named: the question is modal. */
  protectedPath: boolean;
  /** The paths its words name, real (links followed) and as written, absolute (approver rules). */
  paths: string[];
  /** Its path words decided only when it runs, as written (`$D/x`, `inf*`, `~/x`). */
  openPaths: string[];
}

export interface CommandRiskContext {
  /** The workspace's real path. */
  root: string;
  files: RealPathPort;
  /** Whether the command will run confined (the sandbox then guards writes some checks guess at). */
  confined: boolean;
  /** Manifests (package.json, Makefile) changed since the conversation began: their scripts ask. */
  changedManifests: () => Promise<readonly string[]>;
  /** The workspace's secret files (relative paths), ignored ones included. */
  secretFiles: () => Promise<readonly string[]>;
}

/** Words checked as paths in one command at most; beyond it the command asks. */
const MAX_PATH_WORDS = 256;
const HARMLESS_DEVICES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/stdin', '/dev/tty', '-']);
const INTERPRETERS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'fish',
  'python',
  'python3',
  'node',
  'perl',
  'ruby',
  'php',
]);
const MANIFEST_RUNNERS: Record<string, string> = {
  npm: 'package.json',
  pnpm: 'package.json',
  yarn: 'package.json',
  bun: 'package.json',
  make: 'Makefile',
  gmake: 'Makefile',
};

interface PathWord {
  word: string;
  facts: WordFacts;
  reads: boolean;
  /** Its program uses folder names only, never their contents (`ls`, `find`). */
  namesOnly: boolean;
  /** The folder it is relative to (after the `cd`s before it). */
  from: string;
}

/** Folders a command may be in at once: beyond this many, it asks. */
const MAX_FOLDERS = 8;

export async function assessCommand(analysis: CommandAnalysis, context: CommandRiskContext): Promise<CommandFindings> {
  const findings: CommandFindings = {
    reasons: [],
    cautions: [],
    needsNetwork: [],
    needsOut: [],
    protectedPath: false,
    paths: [],
    openPaths: [],
  };
  const add = (list: string[], text: string) => {
    if (!list.includes(text)) list.push(text);
  };
  const words: PathWord[] = [];
  // Every folder the shell may be in by now: a `cd` may fail or be skipped (`false && cd x`),
  // so each one adds a folder instead of replacing it. Logical (bash's `cd`) and real paths.
  let folders = [{ logical: context.root, real: context.root }];
  for (const [index, segment] of analysis.segments.entries()) {
    for (const reason of segmentDangers(segment, context.confined)) add(findings.reasons, reason);
    const program = basename(segment.program);
    if (index > 0 && analysis.operators[index - 1]?.startsWith('|') && INTERPRETERS.has(program))
      add(findings.cautions, `pipes text into \`${program}\`, which runs it`);
    const network = networkUse(segment);
    if (network) {
      add(findings.cautions, network);
      add(findings.needsNetwork, network);
    }
    const write = gitWrite(segment);
    if (write) add(findings.needsOut, write);
    const reads = readsOnly(segment);
    const namesOnly = usesNamesOnly(segment);
    for (const { real } of folders)
      segment.argv.forEach((word, at) => {
        if (at === segment.programIndex) return;
        const facts = segment.facts[at] ?? { computed: false, glob: false, tilde: false };
        for (const part of pathParts(word)) words.push({ word: part, facts, reads, namesOnly, from: real });
      });
    if (searchesRecursively(segment))
      for (const { real } of folders) await checkSearch(segment, real, context, findings, add);
    const moved = await nextFolders(segment, folders, context, findings, add);
    if (moved.length > MAX_FOLDERS) {
      add(findings.reasons, 'it moves between too many folders to check');
      return findings;
    }
    folders = moved;
  }
  for (const redirection of analysis.redirections) {
    if (/&$/.test(redirection.op) && /^(\d+|-)$/.test(redirection.target)) continue; // 2>&1
    // Where a redirection lands depends on the `cd`s before it: every folder is checked.
    for (const { real } of folders)
      words.push({
        word: redirection.target,
        facts: redirection.facts,
        reads: redirection.op === '<',
        namesOnly: false,
        from: real,
      });
  }
  if (words.length > MAX_PATH_WORDS) {
    add(findings.reasons, `it has too many words to check (${words.length})`);
    return findings;
  }
  const secrets = words.length > 0 ? await context.secretFiles() : [];
  for (const word of words) await checkPathWord(word, secrets, context, findings, add);
  // The manifests are read only for a command that runs their scripts.
  const runners = analysis.segments.filter((segment) => Object.hasOwn(MANIFEST_RUNNERS, basename(segment.program)));
  const manifests = runners.length > 0 ? await context.changedManifests() : [];
  for (const segment of runners) {
    const manifest = manifestRun(segment, manifests);
    if (manifest) add(findings.reasons, `it runs scripts from ${manifest}, which changed in this conversation`);
  }
  return findings;
}

/**
 * The folders the shell may be in after this segment: a `cd` or `pushd` to a plain path adds
 * its target (bash's way: `..` undoes the last name unless `-P` follows links first).
 */
async function nextFolders(
  segment: CommandSegment,
  folders: Array<{ logical: string; real: string }>,
  context: CommandRiskContext,
  findings: CommandFindings,
  add: (list: string[], text: string) => void,
): Promise<Array<{ logical: string; real: string }>> {
  const program = basename(segment.program);
  if (program === 'popd') add(findings.reasons, '`popd` moves to a folder decided at run time');
  if (program !== 'cd' && program !== 'pushd') return folders;
  const options = segment.args.filter((arg) => /^-[LPe@]+$/.test(arg));
  const target = segment.args.find((arg) => !/^-[LPe@]+$/.test(arg) && arg !== '--');
  if (target === undefined || target === '-' || /^[-+]\d*$/.test(target)) {
    add(findings.reasons, `\`${segment.argv.join(' ')}\` moves to a folder decided at run time`);
    return folders;
  }
  const physical = options.some((option) => option.includes('P'));
  const next = [...folders];
  for (const folder of folders) {
    const logical = physical
      ? await resolveLikeKernel(folder.real, target, context.files).catch(() => folder.logical)
      : path.resolve(folder.logical, target);
    const real = await resolveLikeKernel('/', logical, context.files).catch(() => logical);
    if (!next.some((known) => known.real === real)) next.push({ logical, real });
  }
  return next;
}

/** A recursive search reads every file below the folders it names: secrets among them ask. */
async function checkSearch(
  segment: CommandSegment,
  cwd: string,
  context: CommandRiskContext,
  findings: CommandFindings,
  add: (list: string[], text: string) => void,
): Promise<void> {
  const secrets = await context.secretFiles();
  if (secrets.length === 0) return;
  // The first word that is no option is the subcommand (git) and the pattern, unless `-e`/`-f` give it.
  const positional = segment.args.filter((arg) => !arg.startsWith('-'));
  const skip =
    (basename(segment.program) === 'git' ? 1 : 0) + (hasOption(segment.args, 'ef', ['regexp', 'file']) ? 0 : 1);
  const folders = positional.slice(skip);
  const searched = folders.length > 0 ? folders : ['.'];
  for (const folder of searched) {
    const absolute = await resolveLikeKernel(cwd, folder, context.files).catch(() => undefined);
    if (absolute === undefined) continue;
    const relative = path.relative(context.root, absolute);
    const found = secrets.find((secret) => relative === '' || secret === relative || secret.startsWith(`${relative}/`));
    if (found) {
      add(findings.reasons, `it searches folders holding secret files (${found})`);
      return;
    }
  }
}

async function checkPathWord(
  candidate: PathWord,
  secrets: readonly string[],
  context: CommandRiskContext,
  findings: CommandFindings,
  add: (list: string[], text: string) => void,
): Promise<void> {
  const { facts, reads, namesOnly, from } = candidate;
  let word = candidate.word;
  if (word === '' || HARMLESS_DEVICES.has(word)) return;
  // `file:///x` is the path `/x` to curl and friends; any other `x://…` is a plain relative
  // path to the kernel (through a folder named `x:`), checked as such below.
  const fileUrl = /^file:\/\/(\/.*)$/i.exec(word);
  if (fileUrl) word = decodeURIComponent(fileUrl[1]!);
  if (facts.computed || facts.glob || facts.tilde || word.startsWith('~')) {
    add(findings.openPaths, word);
    add(findings.reasons, `\`${word}\` is a path decided only when it runs (a glob, variable, \`~\` or substitution)`);
    return;
  }
  // A quoted pattern the program expands itself (`find -name`, `git log -- '.e[n]v'`).
  if (/[*?[]/.test(word)) {
    const pattern = compileGlob(word.replace(/^\.\//, ''));
    const matched = secrets.find((secret) => pattern.test(secret) || pattern.test(path.basename(secret)));
    if (matched) add(findings.reasons, `the pattern \`${word}\` matches a secret file (${matched})`);
    add(findings.openPaths, word);
  }
  let absolute: string;
  try {
    absolute = await resolveLikeKernel(from, word, context.files);
  } catch (error) {
    if (!(error instanceof PathError)) throw error;
    add(findings.reasons, `\`${word}\` cannot be checked: ${error.message}`);
    return;
  }
  if (!isInside(context.root, absolute)) {
    add(findings.reasons, `\`${word}\` is outside the workspace`);
    return;
  }
  add(findings.paths, absolute);
  add(findings.paths, path.resolve(from, word));
  // Words with spaces and no slash are text (a commit message), unless such a file exists.
  if (/\s/.test(word) && !word.includes('/') && (await context.files.realpath(absolute)) === undefined) return;
  const relative = path.relative(context.root, absolute);
  const lexical = path.relative(context.root, path.resolve(from, word));
  const shown = relative === lexical ? '' : ` (it leads to ${relative || 'the workspace folder'})`;
  // A folder holding secret files, to a program that reads what is inside (`tar`, `diff -r`).
  // The whole workspace (`eslint .`) is left to the sandbox where there is one: asking there
  // would ask about every linter run (a known limit: `tar c .` confined can read `.env`).
  if (!namesOnly && !(relative === '' && context.confined)) {
    const held = secrets.find((secret) => relative === '' || secret.startsWith(`${relative}/`));
    if (held) add(findings.reasons, `\`${word}\` holds secret files (${held})`);
  }
  if (relative === '') {
    // The whole workspace, protected paths included: only the sandbox can keep those safe.
    if (!reads && !context.confined)
      add(findings.reasons, `\`${word}\` is the whole workspace, protected paths included`);
    return;
  }
  for (const candidate of new Set([relative, lexical])) {
    if (!reads && isProtectedPath(candidate)) {
      findings.protectedPath = true;
      add(findings.reasons, `\`${word}\` is a protected path${shown}`);
    } else if (isSecretPath(candidate)) {
      add(findings.reasons, `\`${word}\` holds secrets${shown}`);
    }
  }
}

/**
 * The parts of a word that may be paths: the word; the value after `=` (`--output=x`,
 * `of=/etc/x`); after a `:` (`HEAD:.env`, `host:path`, a git pathspec's `:(icase)` magic
 * removed); and, glued to short options, every tail of the cluster (`-opackage.json`,
 * `-t.git`, `-o/etc/x`).
 */
export function pathParts(word: string): string[] {
  const parts = new Set<string>();
  if (!word.startsWith('-')) parts.add(word);
  // `curl -d @file`: the file after an `@`.
  if (word.startsWith('@')) parts.add(word.slice(1));
  const equals = word.indexOf('=');
  if (equals >= 0) parts.add(word.slice(equals + 1));
  const colon = word.lastIndexOf(':');
  if (colon >= 0) parts.add(word.slice(colon + 1).replace(/^\([^)]*\)/, ''));
  const magic = /^:\([^)]*\)(.*)$/.exec(word);
  if (magic) parts.add(magic[1]!);
  if (/^-[^-]/.test(word)) for (let at = 2; at < word.length; at++) parts.add(word.slice(at));
  // A value may sit after spaces (`wget -e 'output_document = .git/config'`).
  for (const part of [...parts]) {
    parts.add(part.trim());
    parts.add(part.replace(/^@/, ''));
  }
  parts.delete('');
  return [...parts];
}

/** The changed manifest whose scripts this segment runs, if any. */
function manifestRun(segment: CommandSegment, changed: readonly string[]): string | undefined {
  const program = basename(segment.program);
  const manifest = Object.hasOwn(MANIFEST_RUNNERS, program) ? MANIFEST_RUNNERS[program] : undefined;
  if (manifest === undefined) return undefined;
  return changed.find((file) => path.basename(file).toLowerCase() === manifest.toLowerCase());
}
