/**
 * `@image:path` (issue 36): a picture of the workspace attached to a prompt, in the chat and the
 * CLI alike. Contained like @file (the path resolved on real paths, never outside the folder), a
 * secret file never attached, and the bytes prepared by the ImageFiles port (probed, scaled,
 * re-encoded) — so a text file named .png, a bomb or an SVG is refused with its reason.
 */
import type { ImagePart } from '../llm/llm-client';
import type { ImageFiles, WorkspaceFiles } from '../ports';
import { SecretReads } from '../policy/secret-reads';
import { resolveWorkspacePath } from '../workspace/workspace-path';
import type { Mention, MentionResolver } from '../session/mentions';

export async function readImageMention(
  workspace: WorkspaceFiles | undefined,
  images: Pick<ImageFiles, 'read'>,
  input: string,
): Promise<ImagePart> {
  if (!workspace) throw new Error('no folder is open');
  if (/\.svg$/i.test(input))
    throw new Error(`${input} is not an image for this purpose (it is text: attach it as a file with @file)`);
  const absolute = await resolveWorkspacePath(workspace.root, input, workspace);
  if ((await workspace.stat(absolute))?.type !== 'file') throw new Error(`${input} is not a file`);
  if (await (await SecretReads.of(workspace)).hides(absolute))
    throw new Error(`${input} is a secret file, so it is not attached`);
  return images.read(absolute, input);
}

/**
 * A resolver for a surface that knows only @image (the CLI): every other mention stays as typed.
 * `others` resolves the rest where a surface has them.
 */
export function imageMentionResolver(
  workspace: () => WorkspaceFiles | undefined,
  images: Pick<ImageFiles, 'read'>,
  others?: MentionResolver,
): MentionResolver {
  return async (mention: Mention) => {
    if (mention.kind === 'image') return readImageMention(workspace(), images, mention.argument ?? '');
    return others?.(mention);
  };
}
