/**
 * Images in the CLI (issue 36): read_file reads pictures through the ImageFiles port on the local
 * disk, and `--images auto|yes|no` (OPENAGENT_IMAGES) says whether the model takes them, as the
 * editor's `openagent.modelAcceptsImages` does. Read at each call: /model applies at once.
 * `@image:path` (`openagent "what is wrong here @image:shot.png"`) attaches a picture, contained
 * to the folder like read_file, prepared like a pasted one; whether the model sees it is decided
 * when the request is made (withImageSupport).
 */
import type { ImageFiles } from '../core/ports';
import {
  acceptsImagesOverride,
  settingsModelSeesImages,
  type AcceptsImagesChoice,
} from '../core/images/accepts-images';
import { nodeImageFiles } from '../node/images/node-image-files';

export { imageMentionResolver } from '../core/images/image-mention';
export type { MentionResolver } from '../core/session/mentions';

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

/** Pictures an `@image:` mention reads (only read here: the request decides what the model sees). */
export function cliImageFiles(settings: { model: string }): Pick<ImageFiles, 'read'> {
  return nodeImageFiles(() => ({ model: settings.model, sees: true }));
}
