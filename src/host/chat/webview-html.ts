import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { webviewCsp } from './webview-csp';

export interface WebviewPage {
  title: string;
  /** Bundle under dist/, e.g. "webview/chat.js". */
  script: string;
  /** Stylesheet under media/, e.g. "chat.css". */
  stylesheet: string;
  /** The element the script mounts into. */
  rootId: string;
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
 * The page every OpenAgent webview starts from. The CSP allows only our own nonce-tagged
 * script and our own resources: no remote images, fonts, frames or connections, so model
 * output rendered as markdown cannot reach the network. The script is a module: what it
 * imports later (the chat's conversation chunk) inherits its nonce.
 */
export function renderWebviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, page: WebviewPage): string {
  const nonce = randomBytes(16).toString('base64');
  const scriptUri = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', ...page.script.split('/')));
  const styleUri = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', page.stylesheet));
  const csp = webviewCsp(webview.cspSource, nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${csp}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <link rel="stylesheet" href="${styleUri}" nonce="${nonce}">
  <title>${page.title}</title>
</head>
<body>
  <div id="${page.rootId}"></div>
  <script type="module" nonce="${nonce}" src="${scriptUri}"></script>
</body>
</html>`;
}
