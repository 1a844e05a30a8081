/**
 * Approvals as data: the loop asks an ApprovalGate (in the editor, a notification) and waits.
 * A request is bound to its tool-call id and a hash of its exact arguments, so an answer can
 * only ever approve the call it was asked about.
 */
import { createHash } from 'node:crypto';
import type { ApprovalDecisionSource, EmitEvent } from '../events/events';
import type { CallRisk } from './call-risk';
import type { ToolReviewer } from './reviewer';

export interface ApprovalRequest {
  conversationId: string;
  toolCallId: string;
  toolName: string;
  /** The tool definition's version (MCP tools): "Always" answers cover that version only. */
  toolVersion?: string;
  input: unknown;
  summary: string;
  argumentsHash: string;
  /** The shell command line the call runs (the tool's traits), as policy rules saw it. */
  command?: string;
  /** What the call can reach (call-risk.ts): reasons it asks, a protected path, cautions. */
  risk: CallRisk;
  signal: AbortSignal;
  /** Puts an event in the conversation's stream (a gate that waits says for whom). */
  emit?: EmitEvent;
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
    /** The web host the call fetches from (from the tool's traits), if any. */
    fetchHost?: string;
    /** The paths the call names as the assessment found them, links followed (approver rules). */
    paths?: readonly string[];
    /** Path words decided only when the command runs (approver rules). */
    openPaths?: readonly string[];
  }): PolicyVerdict;
  /** The reviewer program (approvals.reviewer), shown each call not denied; absent: none. */
  review?: ToolReviewer['review'];
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

/** Text to write as it is, told apart from string values on the work stack. */
class Literal {
  constructor(readonly text: string) {}
}

/**
 * JSON with object keys sorted, written without recursion: arguments nested deeper than the
 * call stack (whoever produced them) hash like any others instead of throwing.
 */
function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const work: unknown[] = [value];
  while (work.length > 0) {
    const item = work.pop();
    if (item instanceof Literal) {
      out.push(item.text);
    } else if (Array.isArray(item)) {
      work.push(new Literal(']'));
      for (let index = item.length - 1; index >= 0; index--) {
        work.push(item[index]);
        if (index > 0) work.push(new Literal(','));
      }
      work.push(new Literal('['));
    } else if (item && typeof item === 'object') {
      const entries = Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      work.push(new Literal('}'));
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, child] = entries[index]!;
        work.push(child, new Literal(`${index > 0 ? ',' : ''}${JSON.stringify(key)}:`));
      }
      work.push(new Literal('{'));
    } else {
      out.push(JSON.stringify(item) ?? 'null');
    }
  }
  return out.join('');
}
