import type { WebviewToHost } from '../../src/protocol/messages';

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
