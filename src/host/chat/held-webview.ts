/**
 * The chat page is set the moment the view opens, before the code behind it has loaded (issue 23:
 * the composer paints while the runtime loads). What the page says meanwhile — its
 * `webview_ready` above all — is held here and delivered, in order, once the controller listens.
 */
import type * as vscode from 'vscode';

/** What the chat's controller uses of its webview. */
export interface ChatWebview {
  postMessage(message: unknown): Thenable<boolean>;
  onDidReceiveMessage(listener: (message: unknown) => void): vscode.Disposable;
}

export interface HeldWebview extends ChatWebview, vscode.Disposable {
  /**
   * From now on messages go to the listeners; those held go first, once the code running now is
   * done (so listeners added right after this call get them too).
   */
  release(): void;
}

/** A page that says more than this before anything listens is not the chat's: the rest is dropped. */
const MAX_HELD = 100;

export function holdMessages(webview: ChatWebview): HeldWebview {
  const listeners = new Set<(message: unknown) => void>();
  const deliver = (message: unknown) => {
    for (const listener of [...listeners]) listener(message);
  };
  let held: unknown[] | undefined = [];
  const subscription = webview.onDidReceiveMessage((message) => {
    if (!held) deliver(message);
    else if (held.length < MAX_HELD) held.push(message);
  });
  return {
    postMessage: (message) => webview.postMessage(message),
    onDidReceiveMessage(listener) {
      listeners.add(listener);
      return { dispose: () => listeners.delete(listener) };
    },
    release() {
      queueMicrotask(() => {
        const earlier = held ?? [];
        held = undefined;
        earlier.forEach(deliver);
      });
    },
    dispose() {
      subscription.dispose();
      listeners.clear();
    },
  };
}
