/**
 * `@image:path` in the CLI (issue 36): `openagent "what is wrong here @image:shot.png"` attaches
 * the picture, contained to the folder like read_file, prepared like a pasted one. Whether the
 * model sees it is decided when the request is made (withImageSupport); here it is only read.
 */
import type { ImageFiles } from '../core/ports';
import { nodeImageFiles } from '../node/images/node-image-files';

export { imageMentionResolver } from '../core/images/image-mention';
export type { MentionResolver } from '../core/session/mentions';

export function cliImageFiles(settings: { model: string }): Pick<ImageFiles, 'read'> {
  return nodeImageFiles(() => ({ model: settings.model, sees: true }));
}
