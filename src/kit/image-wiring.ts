/**
 * Images in the editor (issue 36): read_file reads pictures through the ImageFiles port on the
 * local disk, and the `openagent.modelAcceptsImages` setting ("auto" | "yes" | "no") is read at
 * each model call. (Not `openagent.model.acceptsImages`: `openagent.model` is a string setting,
 * and VS Code ignores a setting nested under another setting's value.)
 */
import * as vscode from 'vscode';
import type { ImageFiles } from '../core/ports';
import { acceptsImagesOverride, settingsModelSeesImages } from '../core/images/accepts-images';
import { nodeImageFiles } from '../node/images/node-image-files';
import { CONFIG_SECTION, readModelSettings } from '../host/settings';

function readChoice(): unknown {
  return vscode.workspace.getConfiguration(CONFIG_SECTION).get<unknown>('modelAcceptsImages', 'auto');
}

/** The session deps and the file tools' port for images, as the window's sessions share them. */
export function editorImages(): { acceptsImages: (model: string) => boolean | undefined; imageFiles: ImageFiles } {
  return {
    acceptsImages: () => acceptsImagesOverride(readChoice()),
    imageFiles: nodeImageFiles(editorModelSeesImages(readModelSettings)),
  };
}

/** The model `settings` name and whether it takes images (the setting, else its name). */
export function editorModelSeesImages(
  settings: () => { provider: string; model: string },
): () => { model: string; sees: boolean } {
  return settingsModelSeesImages(settings, readChoice);
}
