/**
 * The user's say on whether the model takes images (issue 36): the editor's setting
 * `openagent.modelAcceptsImages` and the CLI's `--images` / OPENAGENT_IMAGES, each "auto" | "yes"
 * | "no". "auto" (the default) lets model-info decide by the model's name (image-notes.ts); "yes"
 * sends images to a model the name does not tell about (a local vision model with a plain name);
 * "no" never sends them (each becomes a note saying what it was).
 */
import { modelLabel } from '../llm/provider-presets';
import { modelAcceptsImages } from './image-notes';

export const ACCEPTS_IMAGES_CHOICES = ['auto', 'yes', 'no'] as const;
export type AcceptsImagesChoice = (typeof ACCEPTS_IMAGES_CHOICES)[number];

/** The override a choice means: true ("yes", or a JSON true), false ("no", false), else undefined (auto). */
export function acceptsImagesOverride(choice: unknown): boolean | undefined {
  if (choice === 'yes' || choice === true) return true;
  if (choice === 'no' || choice === false) return false;
  return undefined;
}

/**
 * What read_file asks before it reads a picture: the model the settings name (the provider's
 * default when none is set) and whether it sees images. Read at each call, so a changed setting
 * or model applies at once; the model client checks again with the model actually called.
 */
export function settingsModelSeesImages(
  settings: () => { provider: string; model: string },
  choice: () => unknown,
): () => { model: string; sees: boolean } {
  return () => {
    const { provider, model } = settings();
    const name = modelLabel(provider, model);
    return { model: name, sees: modelAcceptsImages(name, acceptsImagesOverride(choice())) };
  };
}
