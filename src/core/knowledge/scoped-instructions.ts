/**
 * Instructions that apply to some files only (issue 35, item 4): the scoped files
 * (.github/instructions/*.instructions.md, .claude/rules/*.md with applyTo) and the AGENTS.md
 * of a sub-folder. A file comes into play when a tool call names it (read, edit, write, search
 * in it) or the user mentions it in a prompt; from then on the instructions about it hold for
 * the rest of the conversation.
 *
 * They reach the model through the loop's inboxes (drained before each model call), as a user
 * message, not by rewriting the system prompt: the prompt cache of everything before stays
 * valid. A compaction may summarise them away, so after one they are all given again. The texts
 * given are kept for the context meter, which counts them as rules.
 */
import * as path from 'node:path';
import type { AgentEvent } from '../events/events';
import type { Inbox } from '../events/inbox';
import type { KnowledgeFiles } from '../ports';
import { appliesTo, instructionText, type ScopedInstruction } from './instruction-files';
import { RULES_PROMPT_CHARS } from './project-rules';

/** What a conversation is given to apply instructions as files come into play. */
export interface ConversationInstructions {
  /** Drained before each model call: the instructions that apply since the last one. */
  readonly inbox: Inbox;
  /** Sees each event of the conversation (tool calls, prompts, compactions). */
  observe(event: AgentEvent): void;
  /**
   * The rules and memory sections of the system prompt followed by every instruction text given
   * since, one live array, for the context meter.
   */
  knowledgeWith(systemKnowledge: readonly string[]): readonly string[];
}

/** Input fields of tool calls that name a file or folder. */
const PATH_FIELDS = ['path', 'paths', 'file', 'filePath', 'file_path', 'files'];
/** Paths looked at per event and per prompt: a prompt of a million words names no more files. */
const MAX_PATHS_PER_EVENT = 200;
/** Folders climbed looking for the closest AGENTS.md. */
const MAX_DEPTH = 32;
/** Folders whose AGENTS.md was looked for, remembered. */
const MAX_FOLDERS_REMEMBERED = 2_000;

export class ScopedInstructions implements ConversationInstructions {
  private readonly pending = new Set<string>();
  /** Instructions given, in order, by file. */
  private readonly given = new Map<string, string>();
  /** Per folder (relative), the text of its AGENTS.md or null when it has none. */
  private readonly folderRules = new Map<string, string | null>();
  private readonly delivered: string[] = [];
  private givenChars = 0;
  private giveAgain = false;

  constructor(
    private readonly files: KnowledgeFiles,
    private readonly root: string,
    private readonly scoped: readonly ScopedInstruction[],
  ) {}

  readonly inbox: Inbox = () => this.drain();

  observe(event: AgentEvent): void {
    if (event.type === 'tool_call') this.inPlay(pathsInInput(event.input));
    else if (event.type === 'user_message')
      this.inPlay(pathsInText([event.text, ...(event.attachments ?? [])].join('\n')));
    else if (event.type === 'compact' && event.kind !== 'micro' && this.given.size > 0) this.giveAgain = true;
  }

  knowledgeWith(systemKnowledge: readonly string[]): readonly string[] {
    this.delivered.unshift(...systemKnowledge);
    return this.delivered;
  }

  /** The files given so far (workspace-relative), in the order they applied. */
  appliedFiles(): string[] {
    return [...this.given.keys()];
  }

  private inPlay(candidates: string[]): void {
    for (const candidate of candidates.slice(0, MAX_PATHS_PER_EVENT)) {
      const relative = this.relativePath(candidate);
      if (relative !== undefined) this.pending.add(relative);
    }
  }

  /** The path inside the workspace, `/`-separated; undefined for one outside it or empty. */
  private relativePath(candidate: string): string | undefined {
    const cleaned = candidate.trim().replace(/^@(file:)?/, '');
    if (!cleaned || cleaned.length > 1_000 || cleaned.includes('\0')) return undefined;
    const absolute = path.resolve(this.root, cleaned);
    const relative = path.relative(this.root, absolute);
    if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
    return relative.split(path.sep).join('/');
  }

  private async drain(): Promise<string[]> {
    const paths = [...this.pending];
    this.pending.clear();
    const fresh: Array<{ file: string; section: string }> = [];
    for (const relative of paths) {
      for (const instruction of this.scoped) {
        if (this.given.has(instruction.file) || !appliesTo(instruction, relative)) continue;
        const section = `## ${instruction.file} (for ${instruction.patterns.join(', ')})\n${instruction.text}`;
        fresh.push({ file: instruction.file, section: this.within(instruction.file, section) });
      }
      const nested = await this.closestAgentsFile(relative);
      if (nested && !this.given.has(nested.file))
        fresh.push({ file: nested.file, section: this.within(nested.file, `## ${nested.file}\n${nested.text}`) });
    }
    const again = this.giveAgain ? [...this.given.values()] : [];
    this.giveAgain = false;
    for (const { file, section } of fresh) this.given.set(file, section);
    const sections = [...again, ...fresh.map((item) => item.section)];
    if (sections.length === 0) return [];
    const message =
      '# Project rules for the files in play\n' +
      'The project gives these instructions for files now in play. Follow them for the rest of the conversation; ' +
      'where they disagree with the general project rules, these win for those files.\n\n' +
      sections.join('\n\n');
    this.delivered.push(message);
    return [message];
  }

  /** The section, or a note once the rules given in this conversation passed their budget. */
  private within(file: string, section: string): string {
    if (this.givenChars >= RULES_PROMPT_CHARS)
      return `## ${file}\n[left out: the rules for files in play passed ${RULES_PROMPT_CHARS} characters; read the file]`;
    this.givenChars += section.length;
    return section;
  }

  /**
   * The AGENTS.md of the folder closest to `relative` (its own folder, then up), the root's
   * excepted (it is always on). Each folder is looked at once per conversation.
   */
  private async closestAgentsFile(relative: string): Promise<{ file: string; text: string } | undefined> {
    let folder = path.posix.dirname(relative);
    for (let depth = 0; depth < MAX_DEPTH && folder !== '.' && folder !== '/'; depth++) {
      let text = this.folderRules.get(folder);
      if (text === undefined) {
        text = await this.readFolderRules(folder);
        if (this.folderRules.size < MAX_FOLDERS_REMEMBERED) this.folderRules.set(folder, text);
      }
      if (text !== null) return { file: `${folder}/AGENTS.md`, text };
      folder = path.posix.dirname(folder);
    }
    return undefined;
  }

  private async readFolderRules(folder: string): Promise<string | null> {
    const file = `${folder}/AGENTS.md`;
    try {
      const raw = await this.files.read(path.join(this.root, ...file.split('/')));
      return (raw !== undefined && instructionText(file, raw)) || null;
    } catch {
      // A FIFO, a huge file: no rules from it (the always-on reading reports such files).
      return null;
    }
  }
}

/** Strings a tool call's input names as files, from the fields tools use for them. */
export function pathsInInput(input: unknown): string[] {
  if (typeof input !== 'object' || input === null) return [];
  const fields = input as Record<string, unknown>;
  const found: string[] = [];
  for (const name of PATH_FIELDS) {
    const value = fields[name];
    if (typeof value === 'string') found.push(value);
    else if (Array.isArray(value))
      found.push(...value.slice(0, MAX_PATHS_PER_EVENT).filter((item): item is string => typeof item === 'string'));
  }
  return found;
}

/**
 * Words of a prompt that look like file paths (`src/app.ts`, `@file:README.md`, `./a/b`): with a
 * `/` or a dot between name characters. A word that names no file matches no glob, so guessing
 * generously costs nothing.
 */
export function pathsInText(text: string): string[] {
  const found: string[] = [];
  for (const match of text.slice(0, 100_000).matchAll(/[@\w.\-/\\:]+/g)) {
    const word = match[0].replace(/^[`'"(]+|[`'",.;:!?)]+$/g, '');
    if (/[/\\]|\w\.\w/.test(word)) found.push(word);
    if (found.length >= MAX_PATHS_PER_EVENT) break;
  }
  return found;
}
