/**
 * `approvals.approvers` (issue 37): calls a named teammate must approve, and who. Kept in a file
 * of its own so agent-policy.ts only names it. A rule matches a call when the call matches ANY of
 * its lists (tools, bash, paths): for approvals, erring towards asking is the safe mistake.
 */
import { z } from 'zod';

const MAX_RULES = 200;
const MAX_PATTERNS = 1_000;
const MAX_PATTERN_CHARS = 1_000;
/** One day: a request nobody decides within a day is better asked again. */
export const MAX_APPROVAL_TIMEOUT_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_APPROVAL_TIMEOUT_MS = 30 * 60 * 1000;

const pattern = z.string().min(1).max(MAX_PATTERN_CHARS);

/** `30s`, `30m`, `2h`: how long approvers have; at most a day. */
export const approvalTimeout = z
  .string()
  .regex(/^[1-9][0-9]{0,5}(s|m|h)$/, 'a timeout is a number and a unit: "90s", "30m" or "2h"')
  .refine((text) => parseApprovalTimeout(text) <= MAX_APPROVAL_TIMEOUT_MS, 'a timeout is at most a day ("24h")');

/** An approver: a member's e-mail as the team knows them, or `team:<group>`. */
export const approverName = z
  .string()
  .min(1)
  .max(320)
  .regex(
    /^(team:[A-Za-z0-9._-]+|[^\s:@]+@[^\s@]+)$/,
    'an approver is a member\'s e-mail ("alice@corp") or a group ("team:leads")',
  );

export const approverRuleSchema = z.strictObject({
  match: z
    .strictObject({
      tools: z.array(pattern).max(MAX_PATTERNS).optional().describe('Tool names; * matches any run of characters'),
      bash: z
        .array(pattern)
        .max(MAX_PATTERNS)
        .optional()
        .describe('Commands, matched like tools.bash.deny: any segment of a compound command ("git push*")'),
      paths: z
        .array(pattern)
        .max(MAX_PATTERNS)
        .optional()
        .describe('Workspace-relative globs of files a call writes or names ("infra/**")'),
    })
    .refine((match) => (match.tools?.length ?? 0) + (match.bash?.length ?? 0) + (match.paths?.length ?? 0) > 0, {
      message: 'a rule matches something: give tools, bash or paths',
    })
    .describe('A call matching any of these lists needs a named approver'),
  by: z.array(approverName).min(1).max(100).describe('Who may approve: any one of them decides'),
  timeout: approvalTimeout.optional().describe('How long they have (default 30m); no decision by then denies'),
});

export const approverPolicySchema = {
  approvers: z
    .array(approverRuleSchema)
    .max(MAX_RULES)
    .optional()
    .describe('Calls a named teammate must approve (team database); the requester can never approve its own'),
  on_unreachable: z
    .enum(['wait', 'block'])
    .optional()
    .describe('The team database unreachable while a call waits for an approver: keep waiting (default) or deny'),
};

export type ApproverRule = z.infer<typeof approverRuleSchema>;

/** Milliseconds of a timeout as written ("30m"); the default for none. */
export function parseApprovalTimeout(text: string | undefined): number {
  if (text === undefined) return DEFAULT_APPROVAL_TIMEOUT_MS;
  const match = /^(\d+)(s|m|h)$/.exec(text);
  if (!match) return DEFAULT_APPROVAL_TIMEOUT_MS;
  const unit = match[2] === 's' ? 1_000 : match[2] === 'm' ? 60_000 : 3_600_000;
  return Number(match[1]) * unit;
}
