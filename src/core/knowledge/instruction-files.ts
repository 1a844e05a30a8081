/**
 * The instruction files other agents read (issue 35, item 4), found beside OpenAgent's own
 * AGENTS.md and .openagent/rules: CLAUDE.md, .claude/CLAUDE.md, .github/copilot-instructions.md,
 * and the scoped files .github/instructions/*.instructions.md and .claude/rules/*.md, whose
 * front matter `applyTo` (VS Code's comma-separated globs; Claude's `paths` list is read too)
 * says which files they are about. A scoped file without globs, or with `**`, applies always.
 *
 * A cloned repository writes these files, so they are read as hostile text: each is capped, a
 * folder gives at most MAX_FILES_PER_FOLDER of them, a glob reaching out of the workspace
 * (`../`, absolute) is dropped, front matter that is not YAML leaves the file out with a
 * problem reported, and what looks like a secret is redacted before it can reach a prompt.
 */
import * as path from 'node:path';
import { redactText } from '../llm/redact';
import type { KnowledgeFiles } from '../ports';
import { yaml } from '../text/yaml';
import { compileGlob, type PathMatcher } from './instruction-glob';

/** One file's instructions as they go into the prompt. */
export interface InstructionText {
  /** Workspace-relative, `/`-separated. */
  file: string;
  text: string;
}

/** Instructions that apply once a file matching one of `patterns` is in play. */
export interface ScopedInstruction extends InstructionText {
  /** The globs as written (for the reader of the prompt and the meter). */
  patterns: string[];
  /** Matched without backtracking (instruction-glob.ts): a repository's glob cannot stall a conversation. */
  matchers: PathMatcher[];
}

export interface InstructionProblem {
  file: string;
  message: string;
}

/** Always-on files other agents read, in the order they join the prompt after AGENTS.md. */
export const ALWAYS_ON_FILES = ['CLAUDE.md', '.claude/CLAUDE.md', '.github/copilot-instructions.md'];

/** Folders of files that may be scoped by `applyTo`, with the name ending each file must have. */
export const SCOPED_FOLDERS = [
  { folder: '.github/instructions', suffix: '.instructions.md' },
  { folder: '.claude/rules', suffix: '.md' },
];

/** One instruction file's characters beyond this are cut, with a note saying where the rest is. */
export const MAX_INSTRUCTION_FILE_CHARS = 16_000;
/** Files read from one folder; a folder of thousands is someone's mistake or an attack. */
export const MAX_FILES_PER_FOLDER = 100;
/** Globs read from one file's applyTo. */
const MAX_PATTERNS = 50;

/**
 * The instruction text of a file: trimmed, capped with a note, secrets redacted. Undefined for
 * an empty file.
 */
export function instructionText(file: string, raw: string): string | undefined {
  const trimmed = raw.trim();
  if (!trimmed) return undefined;
  const capped =
    trimmed.length > MAX_INSTRUCTION_FILE_CHARS
      ? `${trimmed.slice(0, MAX_INSTRUCTION_FILE_CHARS)}\n[… ${file} is ${trimmed.length} characters; cut at ${MAX_INSTRUCTION_FILE_CHARS}. Read the file for the rest.]`
      : trimmed;
  return redactText(capped);
}

/**
 * Reads a file of the workspace as knowledge: undefined when missing, not a regular file, a link
 * leading out or unreadable (a FIFO, a huge file) — then with a problem saying so.
 */
export async function readInstructionFile(
  files: KnowledgeFiles,
  root: string,
  relative: string,
  problems: InstructionProblem[],
): Promise<string | undefined> {
  try {
    return await files.read(path.join(root, ...relative.split('/')));
  } catch (error) {
    problems.push({ file: relative, message: `not read: ${error instanceof Error ? error.message : String(error)}` });
    return undefined;
  }
}

/** Splits front matter from the body; `applyTo` (or `paths`) as a list of globs, undefined without. */
export function parseInstructionFile(text: string): { patterns: string[] | undefined; body: string } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return { patterns: undefined, body: text };
  let data: unknown;
  try {
    data = yaml().parse(match[1]!);
  } catch (error) {
    throw new Error(`its front matter is not valid YAML (${firstLine(error)}); the file is left out`, {
      cause: error,
    });
  }
  const body = text.slice(match[0].length);
  if (data === null || data === undefined) return { patterns: undefined, body };
  if (typeof data !== 'object' || Array.isArray(data))
    throw new Error('its front matter is not a set of keys; the file is left out');
  const fields = data as Record<string, unknown>;
  const value = fields.applyTo ?? fields.paths;
  if (value === undefined || value === null) return { patterns: undefined, body };
  const listed = typeof value === 'string' ? splitPatterns(value) : Array.isArray(value) ? value : undefined;
  if (!listed || listed.some((pattern) => typeof pattern !== 'string'))
    throw new Error('applyTo must be a string of comma-separated globs; the file is left out');
  return { patterns: (listed as string[]).map((pattern) => pattern.trim()).filter(Boolean), body };
}

/** VS Code's applyTo: globs separated by commas, except the commas of `{a,b}` alternatives. */
export function splitPatterns(value: string): string[] {
  const patterns: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of value) {
    if (char === '{') depth++;
    if (char === '}' && depth > 0) depth--;
    if (char === ',' && depth === 0) {
      patterns.push(current);
      current = '';
    } else current += char;
  }
  patterns.push(current);
  return patterns.map((pattern) => pattern.trim()).filter(Boolean);
}

/**
 * A glob as a matcher over workspace-relative paths, or why it is refused: one that names a
 * place outside the workspace (`..`, an absolute path, a drive, `~`) could only be a trick.
 */
export function patternMatcher(pattern: string): PathMatcher | string {
  const glob = pattern.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
  if (/^([a-zA-Z]:|\/|~)/.test(glob) || glob.split('/').includes('..'))
    return `the glob "${pattern}" leads outside the workspace; it is ignored`;
  try {
    return compileGlob(glob);
  } catch (error) {
    return `the glob "${pattern}" is not usable (${firstLine(error)}); it is ignored`;
  }
}

/** Whether the workspace-relative path matches one of the instruction's globs. */
export function appliesTo(instruction: Pick<ScopedInstruction, 'matchers'>, relative: string): boolean {
  return instruction.matchers.some((matcher) => matcher.test(relative));
}

/**
 * The scoped folders' files: those that apply always (no globs, or `**`) and those that apply to
 * matching files. Files in a folder beyond MAX_FILES_PER_FOLDER are left out and reported.
 */
export async function readScopedInstructions(
  files: KnowledgeFiles,
  root: string,
  problems: InstructionProblem[],
): Promise<{ always: InstructionText[]; scoped: ScopedInstruction[] }> {
  const always: InstructionText[] = [];
  const scoped: ScopedInstruction[] = [];
  for (const { folder, suffix } of SCOPED_FOLDERS) {
    const entries = (await files.list(path.join(root, ...folder.split('/')))).filter(
      (entry) => !entry.directory && entry.name.toLowerCase().endsWith(suffix),
    );
    if (entries.length > MAX_FILES_PER_FOLDER)
      problems.push({
        file: folder,
        message: `${entries.length} instruction files; the first ${MAX_FILES_PER_FOLDER} by name are read, the rest left out`,
      });
    for (const entry of entries.slice(0, MAX_FILES_PER_FOLDER)) {
      const file = `${folder}/${entry.name}`;
      const raw = await readInstructionFile(files, root, file, problems);
      if (raw === undefined) continue;
      const read = scopedInstruction(file, raw, problems);
      if (read && 'matchers' in read) scoped.push(read);
      else if (read) always.push(read);
    }
  }
  return { always, scoped };
}

/** One scoped file read: always-on, scoped, or undefined (empty, broken, or no usable glob). */
function scopedInstruction(
  file: string,
  raw: string,
  problems: InstructionProblem[],
): InstructionText | ScopedInstruction | undefined {
  let parsed: { patterns: string[] | undefined; body: string };
  try {
    parsed = parseInstructionFile(raw);
  } catch (error) {
    problems.push({ file, message: firstLine(error) });
    return undefined;
  }
  const text = instructionText(file, parsed.body);
  if (text === undefined) return undefined;
  const patterns = parsed.patterns ?? [];
  if (patterns.length === 0 || patterns.some((pattern) => /^(\.\/)?\*\*(\/\*)?$/.test(pattern))) return { file, text };
  if (patterns.length > MAX_PATTERNS)
    problems.push({ file, message: `${patterns.length} globs; the first ${MAX_PATTERNS} are used` });
  const usable: string[] = [];
  const matchers: PathMatcher[] = [];
  for (const pattern of patterns.slice(0, MAX_PATTERNS)) {
    const matcher = patternMatcher(pattern);
    if (typeof matcher === 'string') problems.push({ file, message: matcher });
    else {
      usable.push(pattern);
      matchers.push(matcher);
    }
  }
  // Every glob refused: the file was meant for some files, none of which can be named; never applied.
  if (matchers.length === 0) return undefined;
  return { file, text, patterns: usable, matchers };
}

/** A key for "the same text": whitespace runs count as one, so a re-wrapped copy is still a copy. */
export function sameTextKey(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
