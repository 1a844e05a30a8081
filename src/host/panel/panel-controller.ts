/**
 * Connects the developer panel's webview to the conversation session: the same event feed as
 * the chat (both surfaces watch one conversation at once), and the conversation's switches —
 * auto-approve, plan mode, tracing — set from the panel and shown there however they change.
 */
import type { CommandSandbox } from '../../core/ports';
import { describeSandbox } from '../../core/policy/sandbox-status';
import type * as vscode from 'vscode';
import type { ConversationSession } from '../../core/session/conversation-session';
import type { AuditRecord } from '../../core/ports';
import {
  MAX_AUDIT_RECORDS,
  parsePanelMessage,
  type AuditScope,
  type HostToPanel,
  type McpServerStatusMessage,
  type PanelToHost,
  type PanelToggle,
  type PanelToggles,
} from '../../protocol/messages';
import { Disposable } from '../disposable';
import { SessionFeed } from '../chat/session-feed';
import type { PolicyStatus } from './policy-status';
import { PanelForks, type ConversationOpener } from './panel-forks';
import { PanelCompare, type CompareSource } from './panel-compare';
import { PanelThumbnails, type PanelImageSource } from './panel-thumbnails';

/** What the panel needs of the session. */
export type PanelSession = Pick<
  ConversationSession,
  | 'onEvent'
  | 'onReset'
  | 'history'
  | 'switches'
  | 'planModeActive'
  | 'setPlanMode'
  | 'forks'
  | 'currentId'
  | 'isBusy'
  | 'open'
>;

/** The audit trail, for the panel's Audit Log (SPEC 4.5). */
export interface AuditSource {
  /** The scope's records, oldest first. */
  list(scope: AuditScope): Promise<AuditRecord[]>;
  /** Asks where to save, and writes the scope's records as JSONL or CSV. */
  export(scope: AuditScope, format: 'jsonl' | 'csv'): Promise<void>;
}

/** The MCP servers' status, for the panel's header. */
export interface McpStatusSource {
  /** Undefined until the servers are started (on the first conversation). */
  statuses(): McpServerStatusMessage[] | undefined;
  onDidChange(listener: () => void): () => void;
}

/** The policy in force and the team's state, for the panel's Policy tab (SPEC 5a). */
export interface PolicyStatusSource {
  status(): PolicyStatus;
  /** A layer may have changed: the workspace file, the setting, the team's state or policy. */
  onDidChange(listener: () => void): () => void;
}

export class PanelController extends Disposable {
  private readonly feed: SessionFeed<HostToPanel>;
  /** The policy_status last posted, so the many "may have changed" signals post only changes. */
  private postedPolicy: string | undefined;
  /** The Forks tab: the tree of forks the shown conversation is in. */
  private readonly forks: PanelForks;
  /** The Compare tab: two recorded runs side by side. */
  readonly compare: PanelCompare;
  /** Thumbnails of the images the inspector's rows name (issue 36). */
  private readonly thumbnails: PanelThumbnails;

  constructor(
    webview: Pick<vscode.Webview, 'postMessage' | 'onDidReceiveMessage'>,
    private readonly session: PanelSession,
    private readonly mcp?: McpStatusSource,
    private readonly audit?: AuditSource,
    /** Whether commands run confined, and why not. */
    private readonly sandbox?: CommandSandbox,
    private readonly policy?: PolicyStatusSource,
    /** How a clicked fork is shown (default: reopened in this session, as Show History does). */
    openConversation?: ConversationOpener,
    /** Recorded runs for the Compare tab, and re-runs (absent: the tab says it has none). */
    compareSource?: CompareSource,
    /** Where images are read back for thumbnails (absent: each is said to have no preview). */
    images?: PanelImageSource,
  ) {
    super();
    this.feed = this._register(
      new SessionFeed<HostToPanel>(webview, session, {
        events: (events) => ({ type: 'agent_events', events }),
        reset: () => ({ type: 'panel_reset' }),
      }),
    );
    this.forks = this._register(new PanelForks(session, (message) => this.feed.post(message), openConversation));
    this.compare = new PanelCompare(compareSource, (message) => this.feed.post(message));
    this.thumbnails = new PanelThumbnails(images, (message) => this.feed.post(message));
    this._register(webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)));
    const stopSwitches = session.switches.onChange(() => this.postToggles());
    // Approving the agent's plan leaves plan mode from inside the run.
    const stopEvents = session.onEvent((event) => {
      if (event.type === 'plan_mode') this.postToggles();
    });
    const stopMcp = mcp?.onDidChange(() => this.postMcp());
    const stopPolicy = policy?.onDidChange(() => this.postPolicy());
    this._register({ dispose: () => (stopSwitches(), stopEvents(), stopMcp?.(), stopPolicy?.()) });
  }

  get isReady(): boolean {
    return this.feed.isReady;
  }

  onDidBecomeReady(listener: () => void): () => void {
    return this.feed.onDidBecomeReady(listener);
  }

  /** Brings the Audit Log tab forward (it then asks for the records). */
  showAudit(): void {
    this.feed.post({ type: 'audit_show' });
  }

  /** Brings the Compare tab forward. */
  showCompareTab(): void {
    this.feed.post({ type: 'compare_show' });
  }

  /** The webview went away for now (its panel is hidden); it says ready again when it is back. */
  pause(): void {
    this.feed.pause();
  }

  /** The panel (re)loaded, or now shows this controller's session: it gets all of it at once. */
  catchUp(): void {
    this.feed.start();
    this.postToggles();
    this.postMcp();
    this.postSandbox();
    this.postedPolicy = undefined;
    this.postPolicy();
    void this.forks.refresh();
  }

  private receive(raw: unknown): void {
    const message = parsePanelMessage(raw);
    // A webview is untrusted input: anything that does not fit the protocol is dropped.
    if (message) this.handle(message);
  }

  private handle(message: PanelToHost): void {
    switch (message.type) {
      case 'panel_ready':
        this.catchUp();
        return;
      case 'toggle_set':
        // Every setter reports back through switches.onChange, so the panel shows the truth.
        this.setToggle(message.toggle, message.on);
        return;
      case 'audit_request':
        void this.postAudit(message.scope);
        return;
      case 'audit_export':
        void this.audit?.export(message.scope, message.format);
        return;
      case 'forks_request':
        void this.forks.refresh();
        return;
      case 'fork_open':
        void this.forks.open(message.conversationId);
        return;
      case 'compare_request':
        void this.compare.request(message.a, message.b);
        return;
      case 'compare_rerun':
        void this.compare.rerun(message.conversationId, message.step);
        return;
      case 'image_thumbnails_request':
        void this.thumbnails.request(message.sha256s);
        return;
      default:
        return message satisfies never;
    }
  }

  private async postAudit(scope: AuditScope): Promise<void> {
    if (!this.audit) return;
    const records = await this.audit.list(scope).catch(() => []);
    this.feed.post({
      type: 'audit_records',
      scope,
      records: records.slice(-MAX_AUDIT_RECORDS),
      total: records.length,
    });
  }

  private setToggle(toggle: PanelToggle, on: boolean): void {
    if (toggle === 'auto_approve') this.session.switches.setAutoApprove(on);
    else if (toggle === 'plan_mode') this.session.setPlanMode(on);
    else if (toggle === 'teams') this.session.switches.setTeams(on);
    else this.session.switches.setTracing(on);
  }

  private toggles(): PanelToggles {
    return {
      autoApprove: this.session.switches.autoApprove,
      planMode: this.session.planModeActive,
      tracing: this.session.switches.tracing,
      teams: this.session.switches.teams,
    };
  }

  private postMcp(): void {
    if (!this.mcp) return;
    const servers = this.mcp.statuses();
    this.feed.post({ type: 'mcp_status', started: servers !== undefined, servers: servers ?? [] });
  }

  private postSandbox(): void {
    if (!this.sandbox) return;
    const status = this.sandbox.status();
    this.feed.post({ type: 'sandbox_status', confined: status.confined, text: describeSandbox(status) });
  }

  private postPolicy(): void {
    if (!this.policy || !this.feed.isReady) return;
    const message: HostToPanel = { type: 'policy_status', ...this.policy.status() };
    const text = JSON.stringify(message);
    if (text === this.postedPolicy) return;
    this.postedPolicy = text;
    this.feed.post(message);
  }

  private postToggles(): void {
    this.feed.post({ type: 'toggles_change', toggles: this.toggles() });
  }
}
