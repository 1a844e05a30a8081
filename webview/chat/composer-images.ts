/**
 * Images attached in the composer (issue 36): pasted, dropped, or picked. Each shows as a chip
 * (a small preview, its name, a remove button) until the prompt is sent; a prompt the host
 * refuses comes back with them. Only PNG, JPEG, GIF and WebP; SVG is text. What is checked here
 * (kind, size, count) is for a quick answer only: the host probes the bytes again.
 */
import type { AttachedImage } from '../../src/protocol/messages';

/**
 * The protocol's ATTACHED_IMAGE_MAX_BYTES and MAX_ATTACHED_IMAGES, repeated: this is the chat's
 * first script, which must not load the protocol's schemas (a unit test keeps them equal).
 */
export const ATTACHED_IMAGE_MAX_BYTES = 20 * 1024 * 1024;
export const MAX_ATTACHED_IMAGES = 20;

const TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};
const CHIP_PREVIEW_PX = 40;

interface Attachment {
  image: AttachedImage;
  preview?: string;
}

export class ComposerImages {
  private attached: Attachment[] = [];
  /** Files still being read: a prompt sent meanwhile waits for them (see `ready`). */
  private reading: Promise<unknown> = Promise.resolve();
  private pending = 0;

  constructor(
    private readonly chips: HTMLElement,
    private readonly note: HTMLElement,
  ) {}

  get count(): number {
    return this.attached.length;
  }

  /** Resolves once every file given so far has been read (or refused); undefined when none is being read. */
  ready(): Promise<unknown> | undefined {
    return this.pending > 0 ? this.reading : undefined;
  }

  /** Files pasted, dropped or picked: the images among them are attached, the rest said why not. */
  add(files: readonly File[]): void {
    const problems: string[] = [];
    const accepted: File[] = [];
    for (const file of files) {
      const problem = this.refusal(file, accepted.length);
      if (problem) problems.push(problem);
      else accepted.push(file);
    }
    this.say(problems);
    this.pending += accepted.length;
    const reads = accepted.map(async (file, index) => {
      try {
        const data = await readBase64(file);
        const name = file.name || `pasted image ${this.attached.length + index + 1}`;
        const preview = await previewOf(file);
        this.attached.push({ image: { name, mediaType: mediaTypeOf(file), data }, ...(preview ? { preview } : {}) });
        this.render();
      } catch (error) {
        this.say([`${file.name || 'The image'} could not be read (${String(error)}).`]);
      } finally {
        this.pending--;
      }
    });
    this.reading = Promise.all([this.reading, ...reads]);
  }

  /** Takes the attached images for a prompt being sent (the chips go). */
  take(): Attachment[] {
    const taken = this.attached;
    this.attached = [];
    this.render();
    this.say([]);
    return taken;
  }

  /** A refused prompt's images come back, unless others were attached meanwhile. */
  restore(attachments: readonly Attachment[]): void {
    if (this.attached.length > 0 || attachments.length === 0) return;
    this.attached = [...attachments];
    this.render();
  }

  /** A message under the chips (empty: none). */
  say(problems: readonly string[]): void {
    this.note.textContent = problems.join(' ');
    this.note.hidden = problems.length === 0;
  }

  private refusal(file: File, acceptedSoFar: number): string | undefined {
    const name = file.name || 'The pasted item';
    if (/\.svg$/i.test(file.name) || file.type === 'image/svg+xml')
      return `${name} is not an image for this purpose (it is text: attach it as a file).`;
    if (!mediaTypeOf(file)) return `${name} is not a PNG, JPEG, GIF or WebP image, so it was not attached.`;
    if (file.size > ATTACHED_IMAGE_MAX_BYTES)
      return `${name} is ${megabytes(file.size)}; an image may be at most ${megabytes(ATTACHED_IMAGE_MAX_BYTES)}.`;
    if (this.attached.length + acceptedSoFar >= MAX_ATTACHED_IMAGES)
      return `${name} was not attached: a message carries at most ${MAX_ATTACHED_IMAGES} images.`;
    return undefined;
  }

  private render(): void {
    this.chips.replaceChildren(
      ...this.attached.map((attachment) => {
        const chip = document.createElement('span');
        chip.className = 'image-chip';
        chip.title = attachment.image.name;
        if (attachment.preview) {
          const image = document.createElement('img');
          image.src = attachment.preview;
          image.alt = '';
          image.width = CHIP_PREVIEW_PX;
          image.height = CHIP_PREVIEW_PX;
          chip.append(image);
        }
        const name = document.createElement('span');
        name.className = 'image-chip-name';
        // textContent: a file named "<img onerror=…>" is shown as the characters it is.
        name.textContent = attachment.image.name;
        const remove = document.createElement('button');
        remove.type = 'button';
        remove.className = 'image-chip-remove';
        remove.textContent = '×';
        remove.title = `Remove ${attachment.image.name}`;
        remove.setAttribute('aria-label', `Remove ${attachment.image.name}`);
        remove.addEventListener('click', () => {
          this.attached = this.attached.filter((other) => other !== attachment);
          this.render();
        });
        chip.append(name, remove);
        return chip;
      }),
    );
    this.chips.hidden = this.attached.length === 0;
  }
}

/** The image type, by the file's type and else its name's extension; undefined for any other file. */
function mediaTypeOf(file: File): string {
  if (Object.values(TYPES).includes(file.type)) return file.type;
  if (file.type && file.type !== 'application/octet-stream') return '';
  return TYPES[/\.([a-z0-9]+)$/i.exec(file.name)?.[1]?.toLowerCase() ?? ''] ?? '';
}

function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('unreadable'));
    reader.readAsDataURL(file);
  });
}

/** A small preview drawn on a canvas (nothing is loaded by URL); none when the browser cannot decode it. */
async function previewOf(file: File): Promise<string | undefined> {
  try {
    const bitmap = await createImageBitmap(file);
    const scale = Math.min(1, (CHIP_PREVIEW_PX * 2) / Math.max(bitmap.width, bitmap.height));
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(bitmap.width * scale));
    canvas.height = Math.max(1, Math.round(bitmap.height * scale));
    canvas.getContext('2d')?.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    bitmap.close();
    return canvas.toDataURL('image/png');
  } catch {
    return undefined;
  }
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Image files among what was pasted or dropped (a copied screenshot is a file named image.png). */
export function filesOf(data: DataTransfer | null): File[] {
  if (!data) return [];
  const files = [...data.files];
  if (files.length > 0) return files;
  return [...data.items].flatMap((item) => (item.kind === 'file' ? [item.getAsFile()].filter((f) => f !== null) : []));
}
