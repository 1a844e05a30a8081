/**
 * Custom agents as presets in the editor (issue 35, item 4): the preset chosen in
 * `openagent.preset` is read when a conversation starts (PresetChoice), its model routed when a
 * custom agent names one we can use, and what was left out of the workspace's agent files shown
 * once each as a warning that opens the file. The presets come from a trusted workspace only
 * (the PresetLibrary's root is undefined otherwise).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { InstructionProblem } from '../core/knowledge/instruction-files';
import { PresetChoice } from '../core/knowledge/preset-choice';

import type { PresetLibrary } from '../core/knowledge/presets';
import type { SecretSource } from '../core/ports';
import { CONFIG_SECTION, readProviderBaseUrls } from '../host/settings';
import { fileProblemNotices } from '../host/file-problem-notices';

export function editorPresetChoice(
  presets: PresetLibrary,
  secrets: SecretSource,
  workspaceRoot: () => string | undefined,
): PresetChoice {
  return new PresetChoice({
    presets,
    presetName: () => vscode.workspace.getConfiguration(CONFIG_SECTION).get<string>('preset', 'coding'),
    secrets,
    providerBaseUrls: readProviderBaseUrls,
    report: customAgentReporter(workspaceRoot),
  });
}

/** Each problem once per window, as a warning with "Open File". */
function customAgentReporter(workspaceRoot: () => string | undefined): (problems: InstructionProblem[]) => void {
  return fileProblemNotices((problem: InstructionProblem) => ({
    file: vscode.Uri.file(path.join(workspaceRoot() ?? '', ...problem.file.split('/'))),
    text: `OpenAgent custom agent ${problem.file}: ${problem.message}.`,
  }));
}
