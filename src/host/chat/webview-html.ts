import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { webviewDocument } from './webview-document';

export interface WebviewPage {
  title: string;
  /** Bundle under dist/, e.g. "webview/chat.js": written into the page. */
  script: string;
  /** Stylesheet under media/, e.g. "chat.css": written into the page. */
  stylesheet: string;
  /** The element the script mounts into. */
  rootId: string;
  /** A bundle under dist/ the page imports after its first paint, e.g. "webview/chat-conversation.js". */
  laterScript?: string;
}

/** Webviews may load only what the extension ships: the bundle and the media folder. */
export function localResourceRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')];
}

/** The options every OpenAgent webview gets: scripts on, command links off, only our own resources. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, enableCommandUris: false, localResourceRoots: localResourceRoots(extensionUri) };
}

/**
 * The page every OpenAgent webview starts from (webview-document.ts). The CSP allows only our
 * own nonce-tagged script and our own resources: no remote images, fonts, frames or connections,
 * so model output rendered as markdown cannot reach the network. The script is a module: what it
 * imports later (the chat's conversation) inherits its nonce.
 */
export function renderWebviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, page: WebviewPage): string {
  const file = (...segments: string[]) => vscode.Uri.joinPath(extensionUri, ...segments);
  // A few dozen KB read from the extension's own folder, once per view opened.
  const read = (uri: vscode.Uri) => readFileSync(uri.fsPath, 'utf8');
  return webviewDocument({
    title: page.title,
    cspSource: webview.cspSource,
    nonce: randomBytes(16).toString('base64'),
    rootId: page.rootId,
    script: read(file('dist', ...page.script.split('/'))),
    stylesheet: read(file('media', page.stylesheet)),
    ...(page.laterScript
      ? { laterScriptUrl: webview.asWebviewUri(file('dist', ...page.laterScript.split('/'))).toString() }
      : {}),
  });
}
