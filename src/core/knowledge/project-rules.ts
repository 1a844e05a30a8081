/**
 * Project rules (SPEC 2.9): instructions the project gives any agent, added to the system
 * prompt. Always on, in this order (issue 35, item 4):
 *
 *   1. AGENTS.md at the workspace root
 *   2. CLAUDE.md, then .claude/CLAUDE.md
 *   3. .github/copilot-instructions.md
 *   4. .github/instructions/*.instructions.md and .claude/rules/*.md without applyTo (or `**`)
 *   5. .openagent/rules/*.md (by name)
 *
 * Later files are the more specific ones, so the prompt tells the model that where two disagree
 * the later one wins. The same text in two files (CLAUDE.md a copy or a link of AGENTS.md) is
 * given once, under the first file's name with the others named beside it. Scoped files (with
 * applyTo) and nested AGENTS.md are not here: they join the conversation when a file they are
 * about comes into play (scoped-instructions.ts).
 */
import * as path from 'node:path';
import type { KnowledgeFiles } from '../ports';
import {
  ALWAYS_ON_FILES,
  instructionText,
  readInstructionFile,
  readScopedInstructions,
  sameTextKey,
  type InstructionProblem,
  type InstructionText,
  type ScopedInstruction,
} from './instruction-files';

/** All rules together are cut beyond this in the system prompt. */
export const RULES_PROMPT_CHARS = 32_000;

export interface WorkspaceInstructions {
  /** Always-on rules, in order, each text once. */
  rules: InstructionText[];
  /** Rules for matching files only. */
  scoped: ScopedInstruction[];
  problems: InstructionProblem[];
}

export async function readWorkspaceInstructions(files: KnowledgeFiles, root: string): Promise<WorkspaceInstructions> {
  const problems: InstructionProblem[] = [];
  const found: InstructionText[] = [];
  for (const file of ['AGENTS.md', ...ALWAYS_ON_FILES]) {
    const raw = await readInstructionFile(files, root, file, problems);
    const text = raw === undefined ? undefined : instructionText(file, raw);
    if (text !== undefined) found.push({ file, text });
  }
  const { always, scoped } = await readScopedInstructions(files, root, problems);
  found.push(...always);
  const folder = path.join(root, '.openagent', 'rules');
  for (const entry of await files.list(folder)) {
    if (entry.directory || !entry.name.toLowerCase().endsWith('.md')) continue;
    const file = `.openagent/rules/${entry.name}`;
    const raw = await readInstructionFile(files, root, file, problems);
    const text = raw === undefined ? undefined : instructionText(file, raw);
    if (text !== undefined) found.push({ file, text });
  }
  return { rules: withoutCopies(found), scoped, problems };
}

/** The always-on rules alone (the section's contents), as before scoped files existed. */
export async function readProjectRules(files: KnowledgeFiles, root: string): Promise<InstructionText[]> {
  return (await readWorkspaceInstructions(files, root)).rules;
}

/** Each text once: a later file with the same text is named beside the first instead. */
function withoutCopies(found: InstructionText[]): InstructionText[] {
  const first = new Map<string, InstructionText>();
  const kept: InstructionText[] = [];
  for (const rule of found) {
    const key = sameTextKey(rule.text);
    const earlier = first.get(key);
    if (earlier) {
      earlier.file = `${earlier.file} (also ${rule.file})`;
      continue;
    }
    const copy = { ...rule };
    first.set(key, copy);
    kept.push(copy);
  }
  return kept;
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
  const order = rules.length > 1 ? ' Where two of them disagree, the one listed later wins.' : '';
  return `# Project rules\nThe project's instructions for agents working in it. Follow them.${order}\n\n${parts.join('\n\n')}`;
}
