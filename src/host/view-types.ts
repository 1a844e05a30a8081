/**
 * The ids of OpenAgent's webviews, for the classes that fill them and for activation, which
 * registers them before any of that code is loaded.
 */

/** The sidebar chat (a webview view in the OpenAgent activity-bar container). */
export const CHAT_VIEW_TYPE = 'openagent.chat';

/** The developer panel (an editor-area webview panel, restored across reloads). */
export const DEVELOPER_PANEL_TYPE = 'openagent.developerPanel';

/** The session list (a tree view in the OpenAgent container). */
export const SESSION_LIST_VIEW = 'openagent.sessions';
