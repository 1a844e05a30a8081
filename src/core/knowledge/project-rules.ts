/**
 * Project rules (SPEC 2.9): instructions the project gives any agent — AGENTS.md at the
 * workspace root and every .openagent/rules/*.md (by name) — added to the system prompt.
 */
import * as path from 'node:path';
import type { KnowledgeFiles } from '../ports';

/** All rules together are cut beyond this in the system prompt. */
export const RULES_PROMPT_CHARS = 32_000;

export async function readProjectRules(
  files: KnowledgeFiles,
  root: string,
): Promise<Array<{ file: string; text: string }>> {
  const rules: Array<{ file: string; text: string }> = [];
  const agents = await files.read(path.join(root, 'AGENTS.md'));
  if (agents?.trim()) rules.push({ file: 'AGENTS.md', text: agents.trim() });
  const folder = path.join(root, '.openagent', 'rules');
  for (const entry of await files.list(folder)) {
    if (entry.directory || !entry.name.toLowerCase().endsWith('.md')) continue;
    const text = await files.read(path.join(folder, entry.name));
    if (text?.trim()) rules.push({ file: `.openagent/rules/${entry.name}`, text: text.trim() });
  }
  return rules;
}

/** The "# Project rules" section; empty without rules. */
export function rulesPromptSection(rules: Array<{ file: string; text: string }>): string {
  if (rules.length === 0) return '';
  let budget = RULES_PROMPT_CHARS;
  const parts: string[] = [];
  for (const rule of rules) {
    if (budget <= 0) {
      parts.push(`## ${rule.file}\n[left out: the rules passed ${RULES_PROMPT_CHARS} characters; read the file]`);
      continue;
    }
    const text =
      rule.text.length > budget ? `${rule.text.slice(0, budget)}\n[… cut; read ${rule.file} for the rest]` : rule.text;
    budget -= rule.text.length;
    parts.push(`## ${rule.file}\n${text}`);
  }
  return `# Project rules\nThe project's instructions for agents working in it. Follow them.\n\n${parts.join('\n\n')}`;
}
