/**
 * `approvals.reviewer` (issue 37): a program of the user's or the team's that sees each tool call
 * before it runs and may make our decision stricter. Only the schema and its durations here:
 * agent-policy.ts includes it, and nothing of the policy is imported back.
 */
import { z } from 'zod';

/** Without `timeout`, the program has this long to answer. */
export const DEFAULT_REVIEWER_TIMEOUT_MS = 20_000;
/** The longest `timeout` accepted: a call waiting on the program longer is waiting on nothing. */
export const MAX_REVIEWER_TIMEOUT_MS = 10 * 60_000;

const DURATION = /^([1-9][0-9]{0,6})(ms|s|m)$/;

/** Milliseconds in "500ms", "20s", "2m"; undefined for anything else. */
export function durationMs(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (!match) return undefined;
  const unit = match[2] === 'ms' ? 1 : match[2] === 's' ? 1_000 : 60_000;
  return Number(match[1]) * unit;
}

export const reviewerSetting = z
  .strictObject({
    command: z
      .array(z.string().min(1).max(4_096))
      .min(1)
      .max(100)
      .describe(
        'The program and its arguments, run without a shell (relative paths from your home folder). It reads the call as JSON on stdin and prints one JSON line: {"decision":"allow"|"ask"|"deny","reason":"..."}',
      ),
    timeout: z
      .string()
      .refine((text) => {
        const ms = durationMs(text);
        return ms !== undefined && ms <= MAX_REVIEWER_TIMEOUT_MS;
      }, 'a duration up to 10m, e.g. "20s", "500ms" or "2m"')
      .optional()
      .describe('How long the program has to answer (default 20s); no answer in time asks you'),
  })
  .describe(
    "A reviewer program that may make each decision stricter, never looser (the user's or the team's policy only: a workspace's is ignored)",
  );

export type ReviewerSetting = z.infer<typeof reviewerSetting>;

/** The setting's timeout in milliseconds (the default when unset). */
export function reviewerTimeoutMs(setting: ReviewerSetting): number {
  return (setting.timeout !== undefined ? durationMs(setting.timeout) : undefined) ?? DEFAULT_REVIEWER_TIMEOUT_MS;
}

/** "20s", "1m", "1.5s": how the timeout is told to the user. */
export function describeDuration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1_000 === 0) return `${ms / 1_000}s`;
  return ms >= 1_000 ? `${ms / 1_000}s` : `${ms}ms`;
}
