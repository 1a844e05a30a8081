/**
 * The system prompt of a new conversation on a project, the same for every surface: the chosen
 * preset, the environment, then the project's rules, memory and skill index, with its
 * file-scoped instructions and the preset's tool list. The surfaces differ only in where the
 * facts come from and how a broken skill or instruction file is reported.
 */
import type { InstructionProblem } from '../knowledge/instruction-files';
import { presetTools } from '../knowledge/preset-choice';
import type { ProjectKnowledge } from '../knowledge/project-knowledge';
import type { LoadedPreset } from '../knowledge/presets';
import type { SkillProblem } from '../knowledge/skills';
import { buildSystemPrompt, type EnvironmentFacts, type SystemPrompt } from './system-prompt';

export interface ProjectSystemPromptDeps {
  knowledge: Pick<ProjectKnowledge, 'load'>;
  /** The preset the next conversation uses (the setting, or a custom agent). */
  preset(): Promise<LoadedPreset>;
  /** The operating system and shell the agent's commands run in. */
  host: Pick<EnvironmentFacts, 'os' | 'shell'>;
  /** Broken SKILL.md files and instruction files: told to the user, not fatal. */
  report(problems: { skills: SkillProblem[]; instructions: InstructionProblem[] }): void;
}

export async function projectSystemPrompt(
  deps: ProjectSystemPromptDeps,
  workspaceRoot: string | undefined,
): Promise<SystemPrompt> {
  const preset = await deps.preset();
  const { sections, knowledge, skillProblems, instructionProblems, instructions } = await deps.knowledge.load();
  deps.report({ skills: skillProblems, instructions: instructionProblems });
  const text = buildSystemPrompt(preset.text, { ...deps.host, workspaceRoot, date: new Date() }, sections);
  return { text, knowledge, ...(instructions ? { instructions } : {}), ...presetTools(preset) };
}
