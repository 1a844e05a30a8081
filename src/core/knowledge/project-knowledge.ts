/**
 * What the agent knows beyond the conversation, assembled for each new conversation: project
 * rules, memory and the skill index in the system prompt, and the memory and skill tools.
 * Rules include the instruction files other agents read (project-rules.ts); those about some
 * files only join a conversation as its files come into play (scoped-instructions.ts).
 * In an untrusted workspace (SPEC 4.2) nothing the folder ships is read — no rules, no
 * workspace memory, no workspace skills — only the bundled skills and the user's global memory.
 */
import * as path from 'node:path';
import type { KnowledgeFiles } from '../ports';
import type { AnyTool } from '../tools/tool';
import { createMemoryTools, Memory } from './memory';
import type { InstructionProblem } from './instruction-files';
import { readWorkspaceInstructions, rulesPromptSection } from './project-rules';
import { ScopedInstructions } from './scoped-instructions';
import { createSkillTools, SkillLibrary, type SkillProblem, type SkillSource } from './skills';

export interface ProjectKnowledgeDeps {
  files: KnowledgeFiles;
  workspaceRoot: () => string | undefined;
  isTrusted: () => boolean;
  /** The skills shipped with OpenAgent. */
  bundledSkills: string;
  /** The user's global memory file; none without it. */
  globalMemory?: string;
}

/** Where the workspace keeps skills, in order: a later folder wins on the same name. */
export const WORKSPACE_SKILL_FOLDERS = ['.agents/skills', '.github/skills', '.claude/skills', '.openagent/skills'];
export const WORKSPACE_MEMORY_FILE = '.openagent/memory.md';

export class ProjectKnowledge {
  readonly memory: Memory;
  readonly skills: SkillLibrary;

  constructor(private readonly deps: ProjectKnowledgeDeps) {
    this.memory = new Memory(deps.files, () => {
      const root = this.trustedRoot();
      return {
        ...(root ? { workspace: path.join(root, WORKSPACE_MEMORY_FILE) } : {}),
        ...(deps.globalMemory ? { global: deps.globalMemory } : {}),
      };
    });
    this.skills = new SkillLibrary(deps.files, () => {
      const sources: SkillSource[] = [{ folder: deps.bundledSkills, origin: 'bundled' }];
      const root = this.trustedRoot();
      if (root)
        sources.push(
          ...WORKSPACE_SKILL_FOLDERS.map((folder) => ({
            folder: path.join(root, folder),
            origin: 'workspace' as const,
          })),
        );
      return sources;
    });
  }

  /**
   * Rules, memory and skills as system prompt sections (empty ones left out), which of them are
   * the rules and memory (the context meter shows those apart), the broken SKILL.md files and
   * instruction files, and — in a trusted workspace — the instructions for files in play, new for
   * each conversation. Every skill is read once.
   */
  async load(): Promise<{
    sections: string[];
    knowledge: string[];
    skillProblems: SkillProblem[];
    instructionProblems: InstructionProblem[];
    instructions?: ScopedInstructions;
  }> {
    const root = this.trustedRoot();
    const [instructions, memory, skills] = await Promise.all([
      root ? readWorkspaceInstructions(this.deps.files, root) : undefined,
      this.memory.promptSection(),
      this.skills.index(),
    ]);
    const rules = instructions ? rulesPromptSection(instructions.rules) : '';
    const knowledge = [rules, memory].filter((section) => section !== '');
    const sections = [...knowledge, SkillLibrary.promptSection(skills)].filter((section) => section !== '');
    return {
      sections,
      knowledge,
      skillProblems: skills.problems,
      instructionProblems: instructions?.problems ?? [],
      ...(root && instructions
        ? { instructions: new ScopedInstructions(this.deps.files, root, instructions.scoped) }
        : {}),
    };
  }

  tools(): AnyTool[] {
    return [...createMemoryTools(this.memory), ...createSkillTools(this.skills)];
  }

  private trustedRoot(): string | undefined {
    return this.deps.isTrusted() ? this.deps.workspaceRoot() : undefined;
  }
}
