/**
 * `@image:path` (issue 36), with real files in a temp folder: the picture is prepared and sent as
 * an image after the prompt; a path outside the folder, a secret, an SVG or a text file named
 * .png becomes a note with the reason (the prompt still goes); other mentions are left alone.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import { nodeImageFiles } from '../../../../src/node/images/node-image-files';
import { imageMentionResolver } from '../../../../src/core/images/image-mention';
import { parseMentions, resolveMentions } from '../../../../src/core/session/mentions';
import { pngOf } from '../../../fixtures/image-bytes';

describe('@image mentions', () => {
  let root: string;
  let outside: string;
  const resolver = () =>
    imageMentionResolver(
      () => new NodeWorkspace(root),
      nodeImageFiles(() => ({ model: 'm', sees: true })),
    );

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'image-mention-'));
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'image-outside-'));
    fs.mkdirSync(path.join(root, 'shots'));
    fs.writeFileSync(path.join(root, 'shots', 'big shot.png'), await pngOf(2400, 1200));
    fs.writeFileSync(path.join(root, 'notes.png'), 'plain text\n');
    fs.writeFileSync(path.join(root, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    fs.writeFileSync(path.join(outside, 'far.png'), await pngOf(10, 10));
    fs.symlinkSync(path.join(outside, 'far.png'), path.join(root, 'link.png'));
  });
  after(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('parses @image:path and @image:"with spaces" beside @file', () => {
    assert.deepEqual(
      parseMentions('see @image:a.png, and @image:"shots/big shot.png" @file:x.ts').map((m) => [m.kind, m.argument]),
      [
        ['image', 'a.png'],
        ['image', 'shots/big shot.png'],
        ['file', 'x.ts'],
      ],
    );
  });

  it('attaches the prepared image after the prompt, and leaves mentions it does not know as typed', async () => {
    const context = await resolveMentions('what is wrong @image:"shots/big shot.png" in @file:a.ts', resolver());
    assert.deepEqual(context.labels, ['@image:shots/big shot.png']);
    assert.equal(context.images?.length, 1);
    assert.deepEqual([context.images![0]!.width, context.images![0]!.height], [1568, 784]);
    assert.match(context.text, /attached as an image, 1568×784/);
    assert.doesNotMatch(context.text, /a\.ts/);
  });

  it('refuses outside the folder (by path or by link), SVG and a text file named .png, each with its reason', async () => {
    const context = await resolveMentions(
      `@image:../${path.basename(outside)}/far.png @image:link.png @image:logo.svg @image:notes.png @image:gone.png`,
      resolver(),
    );
    assert.equal(context.images, undefined, 'no image attached');
    const sections = context.text.split('</context>');
    assert.match(sections[0]!, /outside the workspace/);
    assert.match(sections[1]!, /outside the workspace|could not be attached/);
    assert.match(sections[2]!, /not an image for this purpose \(it is text/);
    assert.match(sections[3]!, /notes\.png is not a PNG, JPEG, GIF or WebP image/);
    assert.match(sections[4]!, /could not be attached/);
  });
});
