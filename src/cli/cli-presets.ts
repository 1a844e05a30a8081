/**
 * The CLI's preset of each new conversation (issue 35, item 4): `--preset` or `/preset`, a
 * custom agent of the folder among them, with its model when it names one we can route to.
 * What was left out of the folder's agent files is printed as a warning.
 */
import { PresetChoice } from '../core/knowledge/preset-choice';
import type { PresetLibrary } from '../core/knowledge/presets';
import { EnvSecretSource } from '../node/env-secret-source';

export function cliPresetChoice(
  presets: PresetLibrary,
  presetName: () => string,
  env: NodeJS.ProcessEnv,
  baseUrls: () => Readonly<Record<string, string>>,
  warn: (message: string) => void,
): PresetChoice {
  return new PresetChoice({
    presets,
    presetName,
    secrets: new EnvSecretSource(env),
    providerBaseUrls: baseUrls,
    report: (problems) =>
      problems.forEach((problem) => warn(`openagent: custom agent ${problem.file}: ${problem.message}`)),
  });
}
