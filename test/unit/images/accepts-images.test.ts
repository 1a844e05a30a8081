/** The user's say on images (issue 36): "auto" | "yes" | "no", and what read_file is told. */
import assert from 'node:assert/strict';
import { acceptsImagesOverride, settingsModelSeesImages } from '../../../src/core/images/accepts-images';

describe('whether the model accepts images', () => {
  it('"yes" and "no" override; "auto" and anything else leave it to the model name', () => {
    assert.equal(acceptsImagesOverride('yes'), true);
    assert.equal(acceptsImagesOverride('no'), false);
    assert.equal(acceptsImagesOverride('auto'), undefined);
    assert.equal(acceptsImagesOverride('maybe'), undefined);
    assert.equal(acceptsImagesOverride(undefined), undefined);
  });

  it('read_file asks about the model the settings name, or the provider default, read at each call', () => {
    let settings = { provider: 'anthropic', model: '' };
    let choice = 'auto';
    const sees = settingsModelSeesImages(
      () => settings,
      () => choice,
    );
    assert.equal(sees().sees, true, 'the Anthropic default model sees images');
    assert.match(sees().model, /^claude-/);
    settings = { provider: 'openai-compatible', model: 'qwen3-coder' };
    assert.deepEqual(sees(), { model: 'qwen3-coder', sees: false });
    choice = 'yes';
    assert.deepEqual(sees(), { model: 'qwen3-coder', sees: true });
    settings = { provider: 'anthropic', model: 'claude-sonnet-4-6' };
    choice = 'no';
    assert.equal(sees().sees, false);
  });
});
