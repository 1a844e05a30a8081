/**
 * Where a GIF's first frame lies (issue 36). The header's screen size (what image-size reports)
 * does not bound the frames: a 35-byte GIF can claim a 10×10 screen and a first frame of
 * 65535×65535, which jimp's decoder (omggif) then walks pixel by pixel — a minute and a half of
 * a blocked extension host. prepare-image.ts measures the frame here before anything is decoded.
 */
export interface GifFrame {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The first image descriptor of a GIF, or undefined when the file ends (or breaks) before one. */
export function gifFirstFrame(bytes: Uint8Array): GifFrame | undefined {
  const at = (offset: number): number | undefined => bytes[offset];
  const word = (offset: number): number | undefined =>
    offset + 1 < bytes.length ? bytes[offset]! | (bytes[offset + 1]! << 8) : undefined;
  const flags = at(10);
  if (flags === undefined) return undefined;
  // After the 6-byte signature and the 7-byte screen descriptor: the global colour table, if any.
  let offset = 13 + ((flags & 0x80) !== 0 ? 3 * 2 ** ((flags & 0x07) + 1) : 0);
  while (offset < bytes.length) {
    const block = at(offset);
    if (block === 0x2c) {
      const [left, top, width, height] = [word(offset + 1), word(offset + 3), word(offset + 5), word(offset + 7)];
      if (left === undefined || top === undefined || width === undefined || height === undefined) return undefined;
      return { left, top, width, height };
    }
    if (block !== 0x21) return undefined;
    // An extension: its label, then data sub-blocks (a length byte each) up to an empty one.
    offset += 2;
    for (let size = at(offset); size !== undefined && size !== 0; size = at(offset)) offset += size + 1;
    if (at(offset) === undefined) return undefined;
    offset += 1;
  }
  return undefined;
}
