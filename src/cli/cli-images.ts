/**
 * Images in the CLI (issue 36): read_file reads pictures through the ImageFiles port on the local
 * disk, and `--images auto|yes|no` (OPENAGENT_IMAGES) says whether the model takes them, as the
 * editor's `openagent.modelAcceptsImages` does. Read at each call: /model applies at once.
 */
import type { ImageFiles } from '../core/ports';
import {
  acceptsImagesOverride,
  settingsModelSeesImages,
  type AcceptsImagesChoice,
} from '../core/images/accepts-images';
import { nodeImageFiles } from '../node/images/node-image-files';

/** `settings`: the CLI's, changed in place by /model (so read at each call). */
export function cliImages(settings: { provider: string; model: string; images?: AcceptsImagesChoice }): {
  acceptsImages: (model: string) => boolean | undefined;
  imageFiles: ImageFiles;
} {
  return {
    acceptsImages: () => acceptsImagesOverride(settings.images),
    imageFiles: nodeImageFiles(
      settingsModelSeesImages(
        () => settings,
        () => settings.images,
      ),
    ),
  };
}
