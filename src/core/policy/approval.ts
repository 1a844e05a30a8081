/**
 * Approvals as data: the loop asks an ApprovalGate (in the editor, a notification) and waits.
 * A request is bound to its tool-call id and a hash of its exact arguments, so an answer can
 * only ever approve the call it was asked about.
 */
import { createHash } from 'node:crypto';
import type { ApprovalDecisionSource } from '../events/events';
import type { CallRisk } from './call-risk';

export interface ApprovalRequest {
  conversationId: string;
  toolCallId: string;
  toolName: string;
  /** The tool definition's version (MCP tools): "Always" answers cover that version only. */
  toolVersion?: string;
  input: unknown;
  summary: string;
  argumentsHash: string;
  /** What the call can reach (call-risk.ts): reasons it asks, a protected path, cautions. */
  risk: CallRisk;
  signal: AbortSignal;
}

export interface ApprovalDecision {
  approved: boolean;
  source: ApprovalDecisionSource;
  reason?: string;
}

export interface ApprovalGate {
  request(request: ApprovalRequest): Promise<ApprovalDecision>;
}

/** What policy says about one tool call before anyone is asked. */
export type PolicyVerdict =
  | {
      action: 'allow';
      source: ApprovalDecisionSource;
      /** The rule that allowed it, for the audit trail. */ rule?: string;
    }
  | { action: 'deny'; reason: string }
  | {
      action: 'ask';
      /** Asked of a person every time, whatever auto-approve, `--yes` or "Always" says: why. */
      inPerson?: string;
    };

export interface ToolPolicy {
  evaluate(call: {
    toolName: string;
    input: unknown;
    readOnly: boolean;
    needsApproval: boolean;
    /** The shell command line the call runs (from the tool's traits), if any. */
    command?: string;
    /** That command will run in the sandbox. */
    confined?: boolean;
  }): PolicyVerdict;
}

/** Without a policy file: read-only tools run, everything else asks. */
export const defaultToolPolicy: ToolPolicy = {
  evaluate: (call) =>
    call.readOnly || !call.needsApproval ? { action: 'allow', source: 'read_only' } : { action: 'ask' },
};

/** A stable hash of tool arguments: object keys sorted, so equal inputs hash equally. */
export function hashArguments(input: unknown): string {
  return createHash('sha256').update(canonicalJson(input)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, child]) => `${JSON.stringify(key)}:${canonicalJson(child)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
