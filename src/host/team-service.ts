/**
 * The team control plane in the editor (SPEC 5a), opt-in: the database URL lives in
 * SecretStorage ("Set Team Database"; OPENAGENT_TEAM_DATABASE_URL as a fallback), the member
 * from the user-level `openagent.team.member` setting or git's user.email. A status bar item
 * says whether the team database answers; its click shows the details. With no URL nothing
 * here runs and the product works as before, on the embedded store alone.
 */
import * as vscode from 'vscode';
import type { HeldSecrets } from '../core/llm/held-secrets';
import { credentialsIn } from '../core/policy/secret-values';
import type { AgentPolicy } from '../core/policy/agent-policy';
import type { ConversationStore, TeamStamp } from '../core/ports';
import type { TeamPlane } from '../core/team/team-plane';
import { refusedNote, type TeamStatus } from '../core/team/team-status';
import type { TeamApprovals } from '../core/team/team-approvals';
import { openTeamApprovals, openTeamPlane } from '../kit/team-opener';
import type { TeamView } from './panel/policy-status';

export const TEAM_URL_SECRET = 'openagent.team.databaseUrl';
export const TEAM_STATUS_COMMAND = 'openagent.showTeamStatus';

export interface TeamServiceDeps {
  secrets: vscode.SecretStorage;
  /** Every secret the extension holds: the database URL's password joins them. */
  heldSecrets?: HeldSecrets;
  /** Where the last team policy is kept (beside the store). */
  cacheFile: string;
  root: () => string | undefined;
  outbox: () => Promise<ConversationStore | undefined>;
}

export class TeamService implements vscode.Disposable {
  private plane: TeamPlane | undefined;
  private opening: Promise<TeamPlane | undefined> | undefined;
  private readonly item = vscode.window.createStatusBarItem('openagent.team', vscode.StatusBarAlignment.Right, 99);
  private readonly disposables: vscode.Disposable[] = [this.item];
  private toldMistakes = false;
  /** What the status bar shows; undefined with no team configured. */
  private shown: TeamStatus | undefined;
  private readonly statusEmitter = new vscode.EventEmitter<void>();
  /** Named approvers' requests (issue 37): opened on first use, on the opened team's URL. */
  private teamApprovals: { url: string; approvals?: TeamApprovals } | undefined;
  /** Fires when the team's state or its policy version changes (or the team is left). */
  readonly onDidChangeStatus = this.statusEmitter.event;

  constructor(private readonly deps: TeamServiceDeps) {
    this.item.name = 'OpenAgent Team';
    this.item.command = TEAM_STATUS_COMMAND;
    this.disposables.push(
      deps.secrets.onDidChange((event) => {
        if (event.key === TEAM_URL_SECRET) void this.reopen();
      }),
    );
    this.opening = this.open();
  }

  /** The team plane, when a team is configured and opened. */
  current(): TeamPlane | undefined {
    return this.plane;
  }

  /** The team's state for the developer panel; undefined with no team configured. */
  view(): TeamView | undefined {
    if (!this.shown) return undefined;
    const plane = this.plane;
    const version = plane?.policyVersion;
    return {
      status: this.shown,
      ...(plane ? { identity: plane.identity } : {}),
      ...(version
        ? { policyVersion: { version: version.version, changedBy: version.changedBy, changedAt: version.changedAt } }
        : {}),
    };
  }

  /** The team policy in force (the copy kept from last time while the database is away). */
  policy(): AgentPolicy | undefined {
    return this.plane?.policy();
  }

  /** The team policy is there but not applied (mistakes). */
  policyBroken(): boolean {
    return this.plane?.policyBroken === true;
  }

  /** Who records, for the team database; undefined with no team. */
  stamp(): TeamStamp | undefined {
    return this.plane?.identity;
  }

  /** The team's approvals, when a team is configured and opened (issue 37). */
  approvals(): TeamApprovals | undefined {
    const held = this.plane ? this.teamApprovals : undefined;
    if (held) held.approvals ??= openTeamApprovals(held.url);
    return held?.approvals;
  }

  /** Before each new conversation: the team policy read again. */
  async refresh(): Promise<void> {
    const plane = await this.opening;
    await plane?.refresh();
  }

  /** Sends the outbox now (a record stamped for the team was just stored). */
  kick(): void {
    this.plane?.kick();
  }

  /** "Set Team Database": asks for the URL (empty: leave the team) and keeps it in SecretStorage. */
  async setDatabase(): Promise<void> {
    const url = await vscode.window.showInputBox({
      title: 'OpenAgent: Team Database',
      prompt:
        'The PostgreSQL URL your team lead gave you, e.g. postgres://alice:…@db.example.com:5432/openagent?sslmode=require. Kept in the editor’s secret storage. Leave empty to stop using a team database.',
      password: true,
      ignoreFocusOut: true,
      validateInput: (text) =>
        text.trim() === '' || /^postgres(ql)?:\/\//.test(text.trim())
          ? undefined
          : 'A PostgreSQL URL starts with postgres:// or postgresql://',
    });
    if (url === undefined) return;
    if (url.trim() === '') await this.deps.secrets.delete(TEAM_URL_SECRET);
    else await this.deps.secrets.store(TEAM_URL_SECRET, url.trim());
    await this.reopen();
    const plane = await this.opening;
    if (!plane) void vscode.window.showInformationMessage('OpenAgent no longer uses a team database.');
    else if (plane.status.state === 'unreachable')
      void vscode.window.showWarningMessage(`OpenAgent could not reach the team database: ${plane.status.reason}`);
    else
      void vscode.window.showInformationMessage(
        `OpenAgent is connected to the team database as ${plane.identity.member}.`,
      );
  }

  /** What the status bar item's click shows. */
  async showStatus(): Promise<void> {
    const plane = await this.opening;
    if (!plane) {
      const choice = await vscode.window.showInformationMessage(
        'OpenAgent has no team database: policy, budgets and the audit trail are this machine’s.',
        'Set Team Database',
      );
      if (choice) await this.setDatabase();
      return;
    }
    await plane.refresh();
    void vscode.window.showInformationMessage(describeStatus(plane.status, plane), { modal: false });
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
    this.statusEmitter.dispose();
    void this.plane?.dispose();
    void this.teamApprovals?.approvals?.close();
  }

  /** Sends what waits and closes the connection (deactivation). */
  async close(): Promise<void> {
    const plane = await this.opening;
    await plane?.dispose();
    await this.teamApprovals?.approvals?.close().catch(() => undefined);
  }

  private async reopen(): Promise<void> {
    const previous = await this.opening;
    this.plane = undefined;
    await previous?.dispose().catch(() => undefined);
    await this.teamApprovals?.approvals?.close().catch(() => undefined);
    this.teamApprovals = undefined;
    this.opening = this.open();
    await this.opening;
  }

  private async open(): Promise<TeamPlane | undefined> {
    const url = (await this.deps.secrets.get(TEAM_URL_SECRET)) ?? process.env.OPENAGENT_TEAM_DATABASE_URL;
    if (url) this.deps.heldSecrets?.add(...credentialsIn(url));
    if (!url) {
      this.item.hide();
      this.shown = undefined;
      this.statusEmitter.fire();
      return undefined;
    }
    this.show({ state: 'connecting' });
    try {
      const plane = await openTeamPlane({
        url,
        member: vscode.workspace.getConfiguration('openagent').inspect<string>('team.member')?.globalValue,
        root: this.deps.root(),
        cacheFile: this.deps.cacheFile,
        outbox: this.deps.outbox,
        onPolicyMistakes: (problems) => {
          if (this.toldMistakes) return;
          this.toldMistakes = true;
          void vscode.window.showWarningMessage(
            `OpenAgent is not applying the team policy: it has ${problems.length} mistake(s) (first: line ${problems[0]!.line + 1}: ${problems[0]!.message}). Ask your team lead to fix it with \`openagent team policy set\`.`,
          );
        },
      });
      this.plane = plane;
      this.teamApprovals = { url };
      this.disposables.push(plane.onStatus((status) => this.show(status, plane)));
      await plane.refresh();
      this.show(plane.status, plane);
      return plane;
    } catch (error) {
      this.show({
        state: 'unreachable',
        reason: error instanceof Error ? error.message : String(error),
        since: Date.now(),
      });
      return undefined;
    }
  }

  private show(status: TeamStatus, plane?: TeamPlane): void {
    this.shown = status;
    this.statusEmitter.fire();
    if (status.state === 'connecting') {
      this.item.text = '$(sync~spin) Team';
      this.item.tooltip = 'OpenAgent is connecting to the team database…';
      this.item.backgroundColor = undefined;
    } else if (status.state === 'unreachable') {
      this.item.text = '$(warning) Team unreachable';
      this.item.tooltip = `The team database does not answer: ${status.reason}. Work goes on locally; usage and audit records wait in the outbox and are sent when it is back. Team budgets follow budget.on_unreachable.${refusedNote(status)}`;
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    } else {
      this.item.text = status.refused ? '$(warning) Team' : '$(organization) Team';
      this.item.tooltip = `${plane ? describeStatus(status, plane) : 'Connected to the team database.'}${plane ? '' : refusedNote(status)}`;
      this.item.backgroundColor = status.refused ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    }
    this.item.show();
  }
}

function describeStatus(status: TeamStatus, plane: TeamPlane): string {
  const who = `as ${plane.identity.member}${plane.identity.repository ? ` in ${plane.identity.repository}` : ''}`;
  if (status.state === 'unreachable')
    return `OpenAgent cannot reach the team database (${status.reason}); working ${who} on the team policy kept from last time. Records wait in the outbox.${refusedNote(status)}`;
  if (status.state === 'connecting') return `OpenAgent is connecting to the team database ${who}.`;
  const policy = status.policy
    ? `team policy version ${status.policy.version}, set by ${status.policy.changedBy} on ${new Date(status.policy.changedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`
    : 'no team policy set yet';
  return `OpenAgent is connected to the team database ${who}: ${policy}.${refusedNote(status)}`;
}
