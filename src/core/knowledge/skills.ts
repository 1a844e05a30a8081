/**
 * Skills (SPEC 2.9): folders holding a SKILL.md — YAML frontmatter with `name` and
 * `description`, then instructions — and optionally scripts/ and references/. They come from
 * the bundled skills/, then the workspace's .agents/skills/, .github/skills/, .claude/skills/ and
 * .openagent/skills/ (a later source wins on the same name). Progressive disclosure: the
 * system prompt lists names and descriptions, `read_skill` loads a skill's instructions, and
 * its other files one at a time. A broken SKILL.md is reported and skipped, never fatal.
 */
import * as path from 'node:path';
import { yaml } from '../text/yaml';
import { z } from 'zod';
import type { KnowledgeFiles } from '../ports';
import { isSecretPlace } from '../policy/protected-paths';
import { secretRefusal } from '../policy/secret-reads';
import { defineTool, type AnyTool } from '../tools/tool';

export type SkillOrigin = 'bundled' | 'workspace';

export interface SkillSource {
  /** A folder whose sub-folders are skills. */
  folder: string;
  origin: SkillOrigin;
}

export interface Skill {
  name: string;
  description: string;
  origin: SkillOrigin;
  /** The skill's folder (absolute). */
  folder: string;
}

export interface SkillProblem {
  /** The SKILL.md (or folder) at fault. */
  file: string;
  message: string;
}

export interface SkillIndex {
  skills: Skill[];
  problems: SkillProblem[];
}

/** A skill's name: what read_skill is called with, and its folder's name by convention. */
export const SKILL_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const MAX_SKILL_FILE_CHARS = 100_000;
const MAX_SKILL_FILES_LISTED = 100;

const frontmatterSchema = z.object({
  name: z.string().regex(SKILL_NAME, 'lowercase letters, digits and hyphens, at most 64 characters'),
  description: z.string().trim().min(1, 'must say when to use the skill').max(1024, 'at most 1024 characters'),
});

/** Splits a SKILL.md into its validated frontmatter and its body; throws with a reason. */
export function parseSkillFile(text: string): { name: string; description: string; body: string } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) throw new Error('no frontmatter: the file must start with "---", name and description, then "---"');
  let data: unknown;
  try {
    data = yaml().parse(match[1]!);
  } catch (error) {
    throw new Error(
      `the frontmatter is not valid YAML: ${error instanceof Error ? error.message.split('\n')[0] : error}`,
      { cause: error },
    );
  }
  const parsed = frontmatterSchema.safeParse(data ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`frontmatter ${issue.path.join('.') || 'value'}: ${issue.message}`);
  }
  return { ...parsed.data, body: text.slice(match[0].length).trim() };
}

export class SkillLibrary {
  constructor(
    private readonly files: KnowledgeFiles,
    private readonly sources: () => SkillSource[],
  ) {}

  /** Every skill of every source, read now (skills added mid-conversation show up). */
  async index(): Promise<SkillIndex> {
    const byName = new Map<string, Skill>();
    const problems: SkillProblem[] = [];
    for (const source of this.sources()) {
      for (const entry of await this.files.list(source.folder)) {
        if (!entry.directory || entry.name.startsWith('.')) continue;
        const folder = path.join(source.folder, entry.name);
        const file = path.join(folder, 'SKILL.md');
        const text = await this.files.read(file);
        if (text === undefined) continue; // A folder without SKILL.md is not a skill.
        try {
          const { name, description } = parseSkillFile(text);
          byName.set(name, { name, description, origin: source.origin, folder });
        } catch (error) {
          problems.push({ file, message: error instanceof Error ? error.message : String(error) });
        }
      }
    }
    const skills = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
    return { skills, problems };
  }

  /** The skills section of the system prompt (from an index already read); empty when there are none. */
  static promptSection({ skills }: SkillIndex): string {
    if (skills.length === 0) return '';
    return [
      '# Skills',
      'Instructions for particular kinds of work. When a task matches one, call read_skill with its name first and follow it.',
      ...skills.map((skill) => `- ${skill.name}: ${skill.description}`),
    ].join('\n');
  }

  /** A skill's instructions and the list of its other files, or one of those files. */
  async read(name: string, file?: string): Promise<string> {
    const { skills } = await this.index();
    const skill = skills.find((candidate) => candidate.name === name);
    if (!skill) {
      const names = skills.map((candidate) => candidate.name).join(', ') || 'none';
      throw new Error(`There is no skill named "${name}". Skills: ${names}.`);
    }
    if (file !== undefined) return this.readSkillFile(skill, file);
    const { body } = parseSkillFile((await this.files.read(path.join(skill.folder, 'SKILL.md'))) ?? '');
    const others = (await this.listFiles(skill.folder)).filter((relative) => relative !== 'SKILL.md');
    const listing = others.length
      ? `\n\nFiles of this skill (read_skill with "file" to read one):\n${others.map((relative) => `- ${relative}`).join('\n')}`
      : '';
    return `${body}${listing}`;
  }

  private async readSkillFile(skill: Skill, file: string): Promise<string> {
    const target = path.resolve(skill.folder, file);
    const [realFolder, realTarget] = await Promise.all([
      this.files.realpath(skill.folder),
      this.files.realpath(target),
    ]);
    if (!realFolder || !realTarget) throw new Error(`The skill "${skill.name}" has no file ${file}.`);
    const inside = path.relative(realFolder, realTarget);
    if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside))
      throw new Error(`${file} is not a file of the skill "${skill.name}".`);
    // A skill shipped with a link to `.env` (or a folder of keys) is no way around read_file's question.
    if ([file, inside, realTarget].some((name) => isSecretPlace(name.split(path.sep).join('/'))))
      throw new Error(secretRefusal(file));
    const text = await this.files.read(realTarget);
    if (text === undefined) throw new Error(`The skill "${skill.name}" has no file ${file}.`);
    return text.length > MAX_SKILL_FILE_CHARS
      ? `${text.slice(0, MAX_SKILL_FILE_CHARS)}\n[… cut at ${MAX_SKILL_FILE_CHARS} characters]`
      : text;
  }

  /** Files below a skill folder, relative, depth-first, capped. */
  private async listFiles(folder: string, prefix = ''): Promise<string[]> {
    const found: string[] = [];
    for (const entry of await this.files.list(path.join(folder, prefix))) {
      if (found.length >= MAX_SKILL_FILES_LISTED) break;
      if (entry.name.startsWith('.')) continue;
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.directory) found.push(...(await this.listFiles(folder, relative)));
      else found.push(relative);
    }
    return found.slice(0, MAX_SKILL_FILES_LISTED);
  }
}

export function createSkillTools(library: SkillLibrary): AnyTool[] {
  const listSkills = defineTool({
    name: 'list_skills',
    description:
      'List the skills available: each one’s name, what it is for, and where it comes from (bundled with OpenAgent or ' +
      'the workspace’s own). Also reports SKILL.md files that could not be read.',
    inputSchema: z.object({}),
    readOnly: true,
    needsApproval: false,
    summarize: () => 'list the skills',
    async execute() {
      const { skills, problems } = await library.index();
      const lines = skills.map((skill) => `- ${skill.name} (${skill.origin}): ${skill.description}`);
      if (lines.length === 0) lines.push('No skills are installed.');
      if (problems.length)
        lines.push(
          '',
          'Skipped (broken SKILL.md):',
          ...problems.map((problem) => `- ${problem.file}: ${problem.message}`),
        );
      return lines.join('\n');
    },
  });
  const readSkill = defineTool({
    name: 'read_skill',
    description:
      'Load a skill: without "file", its instructions and the list of its other files (scripts, references); with ' +
      '"file" (a path inside the skill’s folder, e.g. "references/checklist.md"), that file.',
    inputSchema: z.object({
      name: z.string().min(1).describe('The skill’s name, as list_skills shows it.'),
      file: z.string().min(1).optional().describe('A file of the skill, relative to its folder.'),
    }),
    readOnly: true,
    needsApproval: false,
    summarize: (input) => `read the skill ${input.name}${input.file ? ` (${input.file})` : ''}`,
    async execute(input) {
      try {
        return await library.read(input.name, input.file);
      } catch (error) {
        return { output: error instanceof Error ? error.message : String(error), isError: true };
      }
    },
  });
  return [listSkills, readSkill];
}
