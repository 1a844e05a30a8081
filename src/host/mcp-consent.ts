/**
 * The two things the user gives before a server from a file starts: "Allow" for a workspace's
 * definition (remembered per workspace under the definition's fingerprint, so a changed
 * definition asks again and a refused one is not asked again until it changes), and the values
 * of its `${input:…}` variables (asked once, kept in SecretStorage per workspace and input id,
 * held as secrets: redacted wherever they would show).
 */
import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { HeldSecrets } from '../core/llm/held-secrets';
import type { McpInputDefinition } from '../core/mcp/vscode-mcp-json';
import type { McpApprovalPort, McpDecision, McpInputPort } from '../node/mcp/mcp-startup';

const APPROVALS_KEY = 'openagent.mcpDefinitionDecisions';
/** Old decisions beyond this many are dropped (each change of a definition adds one). */
const MAX_DECISIONS = 200;
const ALLOW = 'Allow';
const DONT_ALLOW = "Don't Allow";

export class McpDefinitionApprovals implements McpApprovalPort {
  /** Questions on screen, by fingerprint: a restart meanwhile does not ask twice. */
  private readonly asking = new Map<string, Promise<McpDecision | undefined>>();

  constructor(private readonly state: vscode.Memento) {}

  decision(fingerprint: string): McpDecision | undefined {
    return this.decisions()[fingerprint];
  }

  allowedFingerprints(): string[] {
    return Object.entries(this.decisions())
      .filter(([, decision]) => decision === 'allowed')
      .map(([fingerprint]) => fingerprint);
  }

  /**
   * Asks "Start MCP server X from F? <what runs>"; the answer is remembered (a dismissed
   * question is not: the next start asks again). Resolves with the answer.
   */
  ask(fingerprint: string, name: string, source: string, description: string): Promise<McpDecision | undefined> {
    const pending = this.asking.get(fingerprint);
    if (pending) return pending;
    const question = (async () => {
      const choice = await vscode.window.showWarningMessage(
        `Start MCP server "${name}" from ${source}? ${description}`,
        ALLOW,
        DONT_ALLOW,
      );
      const decision = choice === ALLOW ? 'allowed' : choice === DONT_ALLOW ? 'refused' : undefined;
      if (decision) await this.remember(fingerprint, decision);
      return decision;
    })().finally(() => this.asking.delete(fingerprint));
    this.asking.set(fingerprint, question);
    return question;
  }

  private decisions(): Record<string, McpDecision> {
    const stored = this.state.get<unknown>(APPROVALS_KEY);
    return typeof stored === 'object' && stored !== null ? (stored as Record<string, McpDecision>) : {};
  }

  private async remember(fingerprint: string, decision: McpDecision): Promise<void> {
    const entries = Object.entries(this.decisions()).filter(([key]) => key !== fingerprint);
    entries.push([fingerprint, decision]);
    await this.state.update(APPROVALS_KEY, Object.fromEntries(entries.slice(-MAX_DECISIONS)));
  }
}

export class McpInputValues implements McpInputPort {
  private readonly asking = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly secrets: vscode.SecretStorage,
    /** The workspace's identity (its folder), so one repository's inputs never reach another's servers. */
    private readonly workspaceKey: () => string,
    private readonly heldSecrets?: HeldSecrets,
  ) {}

  /** The input's value: kept from before, or asked now (undefined when the user gives none). */
  async value(input: McpInputDefinition): Promise<string | undefined> {
    const key = this.key(input);
    const kept = await this.secrets.get(key);
    if (kept !== undefined) {
      this.heldSecrets?.add(kept);
      return kept;
    }
    let pending = this.asking.get(key);
    if (!pending) {
      pending = this.ask(input, key).finally(() => this.asking.delete(key));
      this.asking.set(key, pending);
    }
    return pending;
  }

  private async ask(input: McpInputDefinition, key: string): Promise<string | undefined> {
    const value = await vscode.window.showInputBox({
      title: `OpenAgent: MCP input "${input.id}" (${input.source})`,
      prompt: input.description || input.id,
      password: input.password,
      ignoreFocusOut: true,
    });
    if (value === undefined) return undefined;
    // Held before it is stored or used, so nothing can show it first.
    this.heldSecrets?.add(value);
    await this.secrets.store(key, value);
    return value;
  }

  private key(input: McpInputDefinition): string {
    // The user's own file's inputs serve every workspace, as in VS Code.
    const scope = input.source === 'user mcp.json' ? 'user' : this.workspaceKey();
    const hashed = createHash('sha256').update(scope).digest('hex').slice(0, 24);
    return `openagent.mcpInput.${hashed}.${input.id}`;
  }
}
