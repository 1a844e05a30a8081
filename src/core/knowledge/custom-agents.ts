/**
 * Custom agents other tools define, read as presets (issue 35, item 4): VS Code's
 * `.github/agents/*.agent.md` and Claude Code's `.claude/agents/*.md`. Each is front matter
 * (name, description, tools, model) and a body of instructions. The tool list is mapped to
 * ours through one table (custom-agent-tools.ts); no `tools` field means every tool.
 *
 * A cloned repository writes these files, so they are read as hostile text, as the instruction
 * files are (instruction-files.ts): a folder gives at most MAX_AGENTS_PER_FOLDER, a file's body
 * is cut at MAX_AGENT_INSTRUCTION_CHARS, front matter beyond MAX_FRONT_MATTER_CHARS or not YAML
 * leaves the file out, links leading out of the workspace and FIFOs are not read (the
 * KnowledgeFiles port), names that could pass for something else (control characters, path
 * separators, `..`) are refused, secrets are redacted, and every problem is reported.
 */
import { redactText } from '../llm/redact';
import type { KnowledgeFiles } from '../ports';
import { yaml } from '../text/yaml';
import * as path from 'node:path';
import { readInstructionFile, type InstructionProblem } from './instruction-files';
import {
  hasHiddenCharacters,
  mapToolNames,
  printable,
  withoutHiddenCharacters,
  type ToolAllowance,
} from './custom-agent-tools';
import { modelNames } from './custom-agent-model';

export type CustomAgentFormat = 'vscode' | 'claude';

/** Where custom agents are read from, in the order their names are claimed. */
export const CUSTOM_AGENT_FOLDERS: ReadonlyArray<{ folder: string; suffix: string; format: CustomAgentFormat }> = [
  { folder: '.github/agents', suffix: '.agent.md', format: 'vscode' },
  { folder: '.claude/agents', suffix: '.md', format: 'claude' },
];

export const MAX_AGENTS_PER_FOLDER = 100;
/** GitHub's own limit for a custom agent's prompt. */
export const MAX_AGENT_INSTRUCTION_CHARS = 30_000;
export const MAX_FRONT_MATTER_CHARS = 16_000;
const MAX_DESCRIPTION_CHARS = 300;
const MAX_NAME_CHARS = 64;

export interface CustomAgent {
  /** The preset name (the front matter's `name`, else the file's name). */
  name: string;
  /** Workspace-relative, `/`-separated: where it comes from. */
  file: string;
  format: CustomAgentFormat;
  description: string;
  /** The body: trimmed, capped with a note, secrets redacted; may be empty. */
  instructions: string;
  /** The tools it may use; undefined: every tool. */
  tools: ToolAllowance | undefined;
  /** Its `model:` names as written (custom-agent-model.ts decides which can be used). */
  models: string[];
  /** What was not used of it (unknown tools, a bad model field), told when it is chosen. */
  notes: string[];
}

/**
 * The custom agents of `root`, in the stated order (.github/agents, then .claude/agents, each
 * by file name). A name already taken — by one of `taken` (OpenAgent's own presets) or by an
 * earlier agent — leaves the later agent out, reported. Names are compared ignoring case.
 */
export async function readCustomAgents(
  files: KnowledgeFiles,
  root: string,
  taken: Iterable<string> = [],
): Promise<{ agents: CustomAgent[]; problems: InstructionProblem[] }> {
  const problems: InstructionProblem[] = [];
  const agents: CustomAgent[] = [];
  const claimed = new Map<string, string>([...taken].map((name) => [name.toLowerCase(), 'an OpenAgent preset']));
  for (const { folder, suffix, format } of CUSTOM_AGENT_FOLDERS) {
    const entries = (await files.list(path.join(root, ...folder.split('/')))).filter(
      (entry) => !entry.directory && entry.name.toLowerCase().endsWith(suffix) && entry.name.length > suffix.length,
    );
    if (entries.length > MAX_AGENTS_PER_FOLDER)
      problems.push({
        file: folder,
        message: `${entries.length} custom agents; the first ${MAX_AGENTS_PER_FOLDER} by name are read, the rest left out`,
      });
    for (const entry of entries.slice(0, MAX_AGENTS_PER_FOLDER)) {
      const file = `${folder}/${entry.name}`;
      const fileName = entry.name.slice(0, entry.name.length - suffix.length);
      if (unusableName(fileName) !== undefined || unusableName(entry.name) !== undefined) {
        problems.push({
          file: `${folder}/${printable(entry.name)}`,
          message: 'its file name is not usable; it is left out',
        });
        continue;
      }
      const before = problems.length;
      const raw = await readInstructionFile(files, root, file, problems);
      if (raw === undefined) {
        // Listed but not given: a link leading out of the workspace or to a secret, a pipe.
        if (problems.length === before)
          problems.push({
            file,
            message: 'not read: it is no regular file inside the workspace (a link leading out, a hard link, a pipe)',
          });
        continue;
      }
      let agent: CustomAgent;
      try {
        agent = parseCustomAgent(raw, { file, format, fileName });
      } catch (error) {
        problems.push({ file, message: error instanceof Error ? error.message : String(error) });
        continue;
      }
      const holder = claimed.get(agent.name.toLowerCase());
      if (holder) {
        problems.push({ file, message: `the name "${agent.name}" is already ${holder}'s; this agent is left out` });
        continue;
      }
      claimed.set(agent.name.toLowerCase(), file);
      agents.push(agent);
    }
  }
  return { agents, problems };
}

/**
 * One custom agent file. Throws (with a message that says the file is left out) when its
 * front matter is not usable: not YAML, too long, not a set of keys, or a `tools` field that is
 * neither a list of names nor a comma-separated string — an agent meant to be restricted is
 * never run with every tool.
 */
export function parseCustomAgent(
  text: string,
  where: { file: string; format: CustomAgentFormat; fileName: string },
): CustomAgent {
  const { fields, body } = frontMatter(text);
  const notes: string[] = [];
  let name = where.fileName;
  if (fields.name !== undefined && fields.name !== null) {
    const written = typeof fields.name === 'string' ? fields.name.trim() : undefined;
    const why = written === undefined ? 'is not text' : unusableName(written);
    if (why === undefined) name = written!;
    else notes.push(`its name ${why}; it is called "${name}" after its file`);
  }
  refuseLookAlikeKeys(fields);
  const tools = toolNames(fields.tools, Object.hasOwn(fields, 'tools'));
  const mapped = tools && mapToolNames(tools);
  if (mapped) notes.push(...mapped.problems);
  const model = modelNames(fields.model);
  if (model.problem) notes.push(model.problem);
  return {
    name,
    file: where.file,
    format: where.format,
    description: descriptionOf(fields.description),
    instructions: instructions(where.file, body),
    tools: mapped?.allowance,
    models: model.names,
    notes,
  };
}

function frontMatter(text: string): { fields: Record<string, unknown>; body: string } {
  const start = /^\uFEFF?---[ \t]*\r?\n/.exec(text);
  if (!start) return { fields: {}, body: text };
  // The end is looked for within the cap only: a file of one endless front matter is not scanned.
  const window = text.slice(0, start[0].length + MAX_FRONT_MATTER_CHARS + 8);
  let end = /\r?\n---[ \t]*(?:\r?\n|$)/.exec(window.slice(start[0].length - 1));
  // A `---` the window cut off mid-line is no closing line.
  if (end && window.length < text.length && start[0].length - 1 + end.index + end[0].length === window.length)
    end = null;
  if (!end) {
    if (text.length > window.length)
      throw new Error(`its front matter is longer than ${MAX_FRONT_MATTER_CHARS} characters; the file is left out`);
    throw new Error('its front matter has no closing ---; the file is left out');
  }
  const yamlText = window.slice(start[0].length, start[0].length - 1 + end.index);
  if (yamlText.length > MAX_FRONT_MATTER_CHARS)
    throw new Error(`its front matter is longer than ${MAX_FRONT_MATTER_CHARS} characters; the file is left out`);
  let data: unknown;
  try {
    data = yaml().parse(yamlText, { maxAliasCount: 100 });
  } catch (error) {
    const first = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
    throw new Error(`its front matter is not valid YAML (${first}); the file is left out`, { cause: error });
  }
  const body = text.slice(start[0].length - 1 + end.index + end[0].length);
  if (data === null || data === undefined) return { fields: {}, body };
  if (typeof data !== 'object' || Array.isArray(data))
    throw new Error('its front matter is not a set of keys; the file is left out');
  return { fields: data as Record<string, unknown>, body };
}

/** VS Code's list, or Claude Code's "Read, Grep, Glob"; undefined when the field is absent. */
function toolNames(value: unknown, present: boolean): string[] | undefined {
  // `tools:` written with nothing after it reads as null: the author meant a list, not every tool.
  if (present && (value === undefined || value === null))
    throw new Error('tools is written but empty; list the tools (or leave the field out); the file is left out');
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string')
    return value
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
  if (Array.isArray(value) && value.every((name) => typeof name === 'string')) return value as string[];
  throw new Error('tools must be a list of tool names or a comma-separated string; the file is left out');
}

/**
 * A key that reads as `tools` but is another (`Tools`, a Cyrillic `о`, a zero-width space): the
 * reader sees a restricted agent, the parser no `tools` field — every tool. Refused, never guessed.
 */
function refuseLookAlikeKeys(fields: Record<string, unknown>): void {
  for (const key of Object.keys(fields))
    if (key !== 'tools' && skeleton(key) === 'tools')
      throw new Error(`its key "${printable(key)}" looks like "tools" but is not; the file is left out`);
}

/** Letters that look like the Latin ones of `tools`, folded to them (after NFKC and lower case). */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  '\u043e': 'o', // Cyrillic о
  '\u03bf': 'o', // Greek ο
  '\u0585': 'o', // Armenian օ
  '0': 'o',
  '\u0442': 't', // Cyrillic т
  '\u03c4': 't', // Greek τ
  '\u0456': 'l', // Cyrillic і
  '\u04cf': 'l', // Cyrillic ӏ
  '\u0131': 'l', // dotless ı
  i: 'l',
  '1': 'l',
  '|': 'l',
  '\u0455': 's', // Cyrillic ѕ
  '\u0282': 's',
  $: 's',
};

function skeleton(key: string): string {
  const folded = withoutHiddenCharacters(key.normalize('NFKC'), '').replace(/\s+/g, '').toLowerCase();
  return [...folded].map((character) => LOOK_ALIKES[character] ?? character).join('');
}

function descriptionOf(value: unknown): string {
  if (typeof value !== 'string') return '';
  const flat = withoutHiddenCharacters(value, ' ').replace(/\$\(/g, '$ (').trim();
  return redactText(flat.length > MAX_DESCRIPTION_CHARS ? `${flat.slice(0, MAX_DESCRIPTION_CHARS)}…` : flat);
}

function instructions(file: string, body: string): string {
  const trimmed = body.trim();
  const capped =
    trimmed.length > MAX_AGENT_INSTRUCTION_CHARS
      ? `${trimmed.slice(0, MAX_AGENT_INSTRUCTION_CHARS)}\n[… ${file} is ${trimmed.length} characters; cut at ${MAX_AGENT_INSTRUCTION_CHARS}.]`
      : trimmed;
  return redactText(capped);
}

/**
 * Why a name cannot be a preset's, or undefined when it can: it is shown in pickers and kept in
 * a setting, so nothing that could pass for a path or hide characters.
 */
export function unusableName(name: string): string | undefined {
  if (!name) return 'is empty';
  if (name.length > MAX_NAME_CHARS) return `is longer than ${MAX_NAME_CHARS} characters`;
  if (hasHiddenCharacters(name)) return 'has control or invisible characters';
  if (/[/\\]/.test(name) || name.includes('..') || name.startsWith('.')) return 'looks like a path';
  // `$(name)` is an icon in VS Code's pickers: a name must not draw one.
  if (name.includes('$(')) return 'has icon syntax ($(…))';
  // "сoding" with a Cyrillic с would sit in the picker as the built-in "coding".
  if (/\p{Script=Latin}/u.test(name) && /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}]/u.test(name))
    return 'mixes Latin letters with look-alikes of another script';
  if (name !== name.trim()) return 'starts or ends with spaces';
  return undefined;
}
