/**
 * Builds the system prompt: the preset's instructions plus the facts about the environment
 * the agent works in. Project rules, memory and the skill index join here as they land.
 */
export interface EnvironmentFacts {
  os: string;
  shell: string;
  workspaceRoot: string | undefined;
  date: Date;
}

export function buildSystemPrompt(presetText: string, environment: EnvironmentFacts): string {
  const lines = [
    `- Operating system: ${environment.os}`,
    `- Shell: ${environment.shell}`,
    `- Workspace root: ${environment.workspaceRoot ?? '(no folder open)'}`,
    `- Today's date: ${environment.date.toISOString().slice(0, 10)}`,
  ];
  return `${presetText.trim()}\n\n# Environment\n${lines.join('\n')}\n`;
}
