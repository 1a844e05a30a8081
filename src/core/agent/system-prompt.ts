/**
 * Builds the system prompt: the preset's instructions, the facts about the environment the
 * agent works in, then further sections (project rules, memory, the skill index).
 */
import type { ConversationInstructions } from '../knowledge/scoped-instructions';

/** A system prompt with the parts of it the context meter tells apart. */
export interface SystemPrompt {
  text: string;
  /** The project rules and memory sections in `text`, as they were given to buildSystemPrompt. */
  knowledge: readonly string[];
  /** Instructions for some files only, given to the conversation as those files come into play. */
  instructions?: ConversationInstructions;
  /**
   * The preset's tools (a custom agent's list): a tool it does not name is neither offered nor
   * run, for the conversation, its sub-agents and teammates. Unset: every tool.
   */
  offersTool?: (toolName: string) => boolean;
}

export interface EnvironmentFacts {
  os: string;
  shell: string;
  workspaceRoot: string | undefined;
  date: Date;
}

export function buildSystemPrompt(
  presetText: string,
  environment: EnvironmentFacts,
  sections: readonly string[] = [],
): string {
  const lines = [
    `- Operating system: ${environment.os}`,
    `- Shell: ${environment.shell}`,
    `- Workspace root: ${environment.workspaceRoot ?? '(no folder open)'}`,
    `- Today's date: ${environment.date.toISOString().slice(0, 10)}`,
  ];
  const extra = sections.map((section) => `\n${section.trim()}\n`).join('');
  return `${presetText.trim()}\n\n# Environment\n${lines.join('\n')}\n${extra}`;
}
