/**
 * The policy the agent applies: the user's defaults from the `openagent.policy` setting and the
 * workspace's `.openagent/agent.yaml` — read when it changes, honoured only in a trusted
 * workspace (SPEC 4.2), and not applied at all while it has mistakes (the user is told once per
 * version of the file; the Problems view lists them).
 */
import * as vscode from 'vscode';
import { agentPolicySchema, MAX_POLICY_BYTES, type AgentPolicy } from '../core/policy/agent-policy';
import { explainPolicy, layerPolicies, type PolicyDecision, type PolicyLayers } from '../core/policy/policy-layers';
import { PolicyFile } from '../core/policy/policy-file';

export class PolicySource implements vscode.Disposable {
  private readonly file = new PolicyFile((problems) => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const first = problems[0]!;
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    void vscode.window
      .showWarningMessage(
        `OpenAgent is not applying .openagent/agent.yaml: line ${first.line + 1}: ${first.message}${more} ` +
          'Until it is fixed, every change asks, whatever auto-approve, a rule or "Always" says.',
        'Open Policy',
      )
      .then((choice) => choice && folder && vscode.window.showTextDocument(policyUri(folder)));
  });
  private readonly warned = new Set<string>();
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [this.changed];
  /**
   * Fires when the user's or the workspace's layer may have changed: the file was read again
   * (it changed, trust was granted, a conversation starts) or the openagent.policy setting changed.
   */
  readonly onDidChange = this.changed.event;

  /** @param team the team policy in force (SPEC 5a), under the user's and the workspace's. */
  constructor(
    private readonly team: () => AgentPolicy | undefined = () => undefined,
    private readonly teamBroken: () => boolean = () => false,
  ) {
    const watcher = vscode.workspace.createFileSystemWatcher('**/.openagent/agent.yaml');
    // The rules in force stay until the changed file has been read: never a moment without them.
    const reread = () => void this.refresh();
    this.disposables.push(
      watcher,
      watcher.onDidCreate(reread),
      watcher.onDidChange(reread),
      watcher.onDidDelete(reread),
      vscode.workspace.onDidGrantWorkspaceTrust(reread),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('openagent.policy')) this.changed.fire();
      }),
    );
    void this.refresh();
  }

  /**
   * The policy in force now: the team's (when a team is configured) under the user's defaults
   * (the openagent.policy setting) and, in a trusted workspace, its valid .openagent/agent.yaml —
   * which can only tighten the team's. Undefined: none of them.
   */
  current(): AgentPolicy | undefined {
    return layerPolicies(this.layers());
  }

  /** Each layer as it is now. */
  layers(): PolicyLayers {
    const team = this.team();
    const user = this.userPolicy();
    const workspace = vscode.workspace.isTrusted ? this.file.current : undefined;
    return { ...(team ? { team } : {}), ...(user ? { user } : {}), ...(workspace ? { workspace } : {}) };
  }

  /** Which layer decided each rule in force. */
  decisions(): PolicyDecision[] {
    const layers = this.layers();
    return explainPolicy(layers, layerPolicies(layers));
  }

  /** The workspace's own policy file and what it says, when it is honoured (trusted, no mistakes). */
  workspacePolicy(): { uri: vscode.Uri; policy: AgentPolicy } | undefined {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const policy = this.file.current;
    if (!folder || !vscode.workspace.isTrusted || !policy) return undefined;
    return { uri: policyUri(folder), policy };
  }

  /**
   * The policy that is there but not applied (mistakes, not a readable file), in words: while
   * there is one, every change asks (toolPolicyFrom's `broken`).
   */
  broken(): string | undefined {
    if (this.teamBroken()) return 'the team policy';
    if (vscode.workspace.isTrusted && this.file.broken) return '.openagent/agent.yaml';
    return this.userSettingBroken() ? 'your openagent.policy setting' : undefined;
  }

  private userSettingBroken(): boolean {
    const value = vscode.workspace.getConfiguration('openagent').get<unknown>('policy');
    if (value === undefined || value === null || (typeof value === 'object' && Object.keys(value).length === 0))
      return false;
    return !agentPolicySchema.safeParse(value).success;
  }

  /** The user's defaults (the openagent.policy setting), when valid. */
  userPolicy(): AgentPolicy | undefined {
    const value = vscode.workspace.getConfiguration('openagent').get<unknown>('policy');
    if (value === undefined || value === null || (typeof value === 'object' && Object.keys(value).length === 0))
      return undefined;
    const parsed = agentPolicySchema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0]!;
    const text = `openagent.policy: ${issue.path.join('.')}: ${issue.message}`;
    if (!this.warned.has(text)) {
      this.warned.add(text);
      void vscode.window.showWarningMessage(`OpenAgent is not applying your policy setting (${text}).`);
    }
    return undefined;
  }

  /** Reads the file again (before a new conversation, so a just-saved policy applies). */
  async refresh(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const problem = folder && (await unusable(policyUri(folder)));
    if (problem !== undefined) {
      this.file.unusable(problem);
      this.changed.fire();
      return;
    }
    let text: string | undefined;
    try {
      text = folder && new TextDecoder().decode(await vscode.workspace.fs.readFile(policyUri(folder)));
    } catch (error) {
      text = undefined;
      // Gone is no policy; there but unreadable is a broken one (fail safe: every change asks).
      if (!(error instanceof vscode.FileSystemError && error.code === 'FileNotFound')) {
        this.file.unusable(`It cannot be read (${error instanceof Error ? error.message : String(error)}).`);
        this.changed.fire();
        return;
      }
    }
    this.file.read(text);
    this.changed.fire();
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
  }
}

/**
 * Why the file is no policy text (a folder, a FIFO or device, too large), checked before it is
 * read: reading a FIFO would never end. Undefined: a file to read, or none at all.
 */
async function unusable(uri: vscode.Uri): Promise<string | undefined> {
  let stat: vscode.FileStat;
  try {
    stat = await vscode.workspace.fs.stat(uri);
  } catch {
    return undefined;
  }
  if (stat.type & vscode.FileType.Directory) return 'It is a folder, not a file.';
  if (!(stat.type & vscode.FileType.File)) return 'It is not a regular file (a FIFO, socket or device).';
  if (stat.size > MAX_POLICY_BYTES)
    return `It is ${Math.round(stat.size / 1024)} KB; at most ${MAX_POLICY_BYTES / 1024} KB is read.`;
  return undefined;
}

function policyUri(folder: vscode.WorkspaceFolder): vscode.Uri {
  return vscode.Uri.joinPath(folder.uri, '.openagent', 'agent.yaml');
}
