import type { PanelToHost, WebviewToHost } from '../../src/protocol/messages';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();

/** The one way a webview talks to the host: typed protocol messages. */
export function postToHost(message: WebviewToHost): void {
  api.postMessage(message);
}

/** The developer panel's one way to talk to the host. */
export function postPanelMessage(message: PanelToHost): void {
  api.postMessage(message);
}

/** What the webview keeps across being hidden and shown again (filters, the open tab). */
export const webviewState = {
  load: (): unknown => api.getState(),
  save: (state: unknown): void => api.setState(state),
};
