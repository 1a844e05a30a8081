/**
 * "Open Memory" (the workspace's or the global memory file, created when missing, in an editor)
 * and "Add Skill" (a new .openagent/skills/<name>/SKILL.md from a template).
 */
import * as vscode from 'vscode';
import type { Memory, MemoryScope } from '../../core/knowledge/memory';
import { SKILL_NAME } from '../../core/knowledge/skills';
import { showFileCreatingIt, uriExists } from '../uri-files';

export async function openMemory(memory: Memory): Promise<void> {
  const scopes = (['workspace', 'global'] as const).filter((scope) => memory.location(scope));
  const choice =
    scopes.length > 1
      ? await vscode.window.showQuickPick(
          [
            {
              label: 'Workspace memory',
              description: '.openagent/memory.md: this project',
              scope: 'workspace' as MemoryScope,
            },
            { label: 'Global memory', description: 'yours, in every workspace', scope: 'global' as MemoryScope },
          ],
          { placeHolder: 'Open which memory?' },
        )
      : scopes[0] && { scope: scopes[0] };
  if (!choice) return;
  await showFileCreatingIt(
    vscode.Uri.file(memory.location(choice.scope)!),
    '# Memory\n\n<!-- OpenAgent reads this at the start of each conversation. One fact per line. -->\n',
  );
}

export async function addSkill(): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    void vscode.window.showInformationMessage('Open a folder first: its skills live in .openagent/skills/.');
    return;
  }
  const skillsFolder = vscode.Uri.joinPath(folder.uri, '.openagent', 'skills');
  const name = await vscode.window.showInputBox({
    title: 'Add Skill',
    prompt: 'The skill’s name: lowercase letters, digits and hyphens',
    placeHolder: 'e.g. release-checklist',
    validateInput: async (value) => {
      if (!SKILL_NAME.test(value)) return 'Lowercase letters, digits and hyphens, starting with a letter or digit.';
      return (await uriExists(vscode.Uri.joinPath(skillsFolder, value)))
        ? `.openagent/skills/${value} exists already.`
        : undefined;
    },
  });
  if (!name) return;
  const description = await vscode.window.showInputBox({
    title: `Add Skill: ${name}`,
    prompt: 'When should the agent use it? (the agent sees this line and decides from it)',
    placeHolder: 'e.g. Use when preparing a release: version bump, changelog, tag.',
    validateInput: (value) =>
      value.trim() === '' ? 'Say when to use the skill.' : value.length > 1024 ? 'At most 1024 characters.' : undefined,
  });
  if (!description) return;
  await showFileCreatingIt(
    vscode.Uri.joinPath(skillsFolder, name, 'SKILL.md'),
    skillTemplate(name, description.trim()),
  );
  if (!vscode.workspace.isTrusted)
    void vscode.window.showWarningMessage('Workspace skills are used only once you trust this folder.');
}

function skillTemplate(name: string, description: string): string {
  // JSON strings are valid YAML: any description is quoted safely.
  return `---
name: ${name}
description: ${JSON.stringify(description)}
---
# ${name.replace(/-/g, ' ')}

## When to use
Say what kind of task this skill is for, and what it is not for.

## Steps
1. The first thing to do, and how to check it worked.
2. …

## Done when
What must be true before the work counts as finished.

<!-- Longer material goes in references/, scripts the steps run in scripts/: read_skill lists them. -->
`;
}
