/**
 * The chat view's page: set as soon as the view opens, by the activation code, so the webview
 * loads and paints while the runtime behind it loads (see held-webview.ts).
 */
import type * as vscode from 'vscode';
import { renderWebviewHtml, webviewOptions } from './webview-html';

export function showChatPage(view: vscode.WebviewView, extensionUri: vscode.Uri): void {
  view.webview.options = webviewOptions(extensionUri);
  view.webview.html = renderWebviewHtml(view.webview, extensionUri, {
    title: 'OpenAgent',
    script: 'webview/chat.js',
    stylesheet: 'chat.css',
    rootId: 'openagent-chat',
    laterScript: 'webview/chat-conversation.js',
  });
}
