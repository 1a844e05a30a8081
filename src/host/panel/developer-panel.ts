/**
 * "OpenAgent: Open Developer Panel": one editor-area webview panel bound to the session's
 * current conversation. Running the command again reveals the panel instead of opening another.
 */
import type { CommandSandbox } from '../../core/ports';
import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import { renderWebviewHtml, webviewOptions } from '../chat/webview-html';
import { DEVELOPER_PANEL_TYPE } from '../view-types';
import {
  PanelController,
  type AuditSource,
  type McpStatusSource,
  type PanelSession,
  type PolicyStatusSource,
} from './panel-controller';
import { openInSession, type ConversationOpener } from './panel-forks';
import type { CompareSource } from './panel-compare';
import type { PanelImageSource } from './panel-thumbnails';
import type { Divergence } from '../../core/replay/divergence';

export class DeveloperPanel extends Disposable {
  static readonly viewType = DEVELOPER_PANEL_TYPE;

  private panel: vscode.WebviewPanel | undefined;
  private controller: PanelController | undefined;
  /** How a fork clicked in the Forks tab is shown (set by the window's sessions). */
  private openConversation: ConversationOpener | undefined;
  /** Recorded runs for the Compare tab (set once the store can be opened). */
  private compareSource: CompareSource | undefined;
  /** Where the inspector's image thumbnails are read (issue 36; set with the chat's images). */
  private imageSource: PanelImageSource | undefined;
  private readonly readyEmitter = this._register(new vscode.EventEmitter<void>());
  /** Fires each time the panel's webview has loaded its script and said it is ready. */
  readonly onDidBecomeReady = this.readyEmitter.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private session: PanelSession,
    private readonly mcp?: McpStatusSource,
    private readonly audit?: AuditSource,
    private sandbox?: CommandSandbox,
    private readonly policy?: PolicyStatusSource,
  ) {
    super();
  }

  get isReady(): boolean {
    return this.controller?.isReady ?? false;
  }

  /** "Show Audit Log": the panel on its Audit Log tab (once its webview is ready). */
  showAudit(): void {
    this.show();
    const controller = this.controller;
    if (!controller) return;
    if (controller.isReady) controller.showAudit();
    else {
      const stop = controller.onDidBecomeReady(() => {
        stop();
        controller.showAudit();
      });
    }
  }

  /** Opens the panel beside the editor, or brings the open one forward. */
  show(): void {
    if (this.panel) {
      this.panel.reveal();
      return;
    }
    this.adopt(
      vscode.window.createWebviewPanel(
        DeveloperPanel.viewType,
        'OpenAgent Developer Panel',
        { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
        { ...webviewOptions(this.extensionUri), enableFindWidget: true },
      ),
    );
  }

  /**
   * Restores the panel VS Code kept open across a window reload (a WebviewPanelSerializer): it
   * follows the session's current conversation like a newly opened one.
   */
  readonly serializer: vscode.WebviewPanelSerializer = {
    deserializeWebviewPanel: async (panel) => {
      if (this.panel) {
        panel.dispose();
        return;
      }
      panel.webview.options = webviewOptions(this.extensionUri);
      this.adopt(panel);
    },
  };

  /**
   * How the Forks tab shows a clicked fork: the window's sessions bring forward one already
   * showing it (asked at each click, so the open panel uses it at once).
   */
  openConversationsWith(opener: ConversationOpener): void {
    this.openConversation = opener;
  }

  /** Where the Compare tab reads recorded runs and starts re-runs. */
  compareWith(source: CompareSource): void {
    this.compareSource = source;
  }

  /** Where the inspector reads the images its rows name, for their thumbnails. */
  imagesWith(source: PanelImageSource): void {
    this.imageSource = source;
  }

  /** "Show in Developer Panel" after a replay or a re-run: the Compare tab with A and B. */
  showCompare(a: string, b: string, replay?: { reproduced: boolean; divergence?: Divergence }): void {
    this.show();
    const controller = this.controller;
    if (!controller) return;
    const go = () => {
      controller.showCompareTab();
      void controller.compare.request().then(() => controller.compare.compare(a, b, replay));
    };
    if (controller.isReady) go();
    else {
      const stop = controller.onDidBecomeReady(() => {
        stop();
        go();
      });
    }
  }

  /** The panel shows another session (the session list): it catches up with that one. */
  follow(session: PanelSession, sandbox?: CommandSandbox): void {
    if (this.session === session) return;
    this.session = session;
    this.sandbox = sandbox;
    if (!this.panel) return;
    const wasReady = this.controller?.isReady ?? false;
    const controller = this.bind(this.panel);
    if (wasReady) controller.catchUp();
  }

  private bind(panel: vscode.WebviewPanel): PanelController {
    this.controller?.dispose();
    const controller = new PanelController(
      panel.webview,
      this.session,
      this.mcp,
      this.audit,
      this.sandbox,
      this.policy,
      (conversationId, session) => (this.openConversation ?? openInSession)(conversationId, session),
      this.compareSource,
      this.imageSource,
    );
    controller.onDidBecomeReady(() => this.readyEmitter.fire());
    this.controller = controller;
    return controller;
  }

  private adopt(panel: vscode.WebviewPanel): void {
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'openagent.svg');
    this.panel = panel;
    this.bind(panel);
    // A hidden panel's webview is unloaded: nothing is posted to it until it is shown again,
    // says ready, and catches up from the session's history.
    panel.onDidChangeViewState(({ webviewPanel }) => {
      if (!webviewPanel.visible) this.controller?.pause();
    });
    panel.onDidDispose(() => {
      this.controller?.dispose();
      this.panel = undefined;
      this.controller = undefined;
    });
    panel.webview.html = renderWebviewHtml(panel.webview, this.extensionUri, {
      title: 'OpenAgent Developer Panel',
      script: 'webview/panel.js',
      stylesheet: 'panel.css',
      rootId: 'openagent-panel',
    });
  }

  override dispose(): void {
    this.panel?.dispose();
    super.dispose();
  }
}
