/**
 * read_file of a picture (issue 36): for a model that sees images, the image (prepared within
 * IMAGE_LIMITS by the ImageFiles port) with a line of text; for one that does not, a text note
 * saying so — which the user reads in the tool's result too. A file that is not the picture its
 * name claims is an error result with the reason, never a crash.
 */
import type { ImageFiles } from '../../ports';
import type { ToolOutput } from '../tool';

const IMAGE_EXTENSIONS = /\.(png|jpe?g|gif|webp)$/i;

export function isImageFileName(name: string): boolean {
  return IMAGE_EXTENSIONS.test(name);
}

export async function readImageFile(images: ImageFiles, absolute: string, shownPath: string): Promise<ToolOutput> {
  const { model, sees } = images.modelSeesImages();
  if (!sees)
    return {
      output:
        `${shownPath} is an image, and ${model} does not accept images, so it cannot see it. ` +
        'Ask the user to describe it or to switch to a model that sees images (or to set openagent.modelAcceptsImages to "yes").',
      isError: true,
    };
  try {
    const image = await images.read(absolute, shownPath);
    return {
      output: `${shownPath}: an image, ${image.width}×${image.height} as sent (${image.mediaType}).`,
      images: [image],
    };
  } catch (error) {
    return { output: error instanceof Error ? error.message : String(error), isError: true };
  }
}
