/**
 * Images in the chat (issue 36), wired for the editor: where prepared images are kept (the
 * conversation store's ImageStore, so previews come back with a reopened conversation; memory
 * when the store cannot be opened), how the composer's bytes are prepared, previews made, and
 * @image:path read in the shown folder.
 */
import { imageMentionResolver } from '../core/images/image-mention';
import { MemoryImageStore } from '../core/images/memory-image-store';
import type { MentionResolver } from '../core/session/mentions';
import type { ImageStore, WorkspaceFiles } from '../core/ports';
import type { ChatImageDeps } from '../host/chat/chat-images';
import { nodeImageFiles } from '../node/images/node-image-files';
import { prepareImage } from '../node/images/prepare-image';
import { imageThumbnail } from '../node/images/image-thumbnail';

export interface ChatImageWiring {
  /** What the chat controller uses for the composer's images and the previews. */
  chat: ChatImageDeps;
  /** The window's mention resolver, with @image:path added. */
  resolveMention: MentionResolver;
}

export function wireChatImages(
  stored: () => Promise<ImageStore | undefined>,
  modelSeesImages: () => { model: string; sees: boolean },
  workspace: () => WorkspaceFiles | undefined,
  others: MentionResolver,
): ChatImageWiring {
  const memory = new MemoryImageStore();
  const store: ImageStore = {
    put: async (image) => ((await stored()) ?? memory).put(image),
    get: async (sha256) => (await (await stored())?.get(sha256)) ?? memory.get(sha256),
  };
  const files = nodeImageFiles(modelSeesImages);
  return {
    chat: {
      store,
      prepare: (bytes, name) => prepareImage(bytes, { name }),
      thumbnail: imageThumbnail,
      modelSeesImages,
    },
    resolveMention: imageMentionResolver(
      workspace,
      {
        // An @image is kept like a pasted one, so the chat can show its preview.
        read: async (absolute, name) => {
          const image = await files.read(absolute, name);
          await store.put(image);
          return image;
        },
      },
      others,
    ),
  };
}
