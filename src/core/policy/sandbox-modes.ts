/**
 * The sandbox modes of policy and settings, and how two of them combine. Apart from the policy
 * schema (agent-policy.ts, which needs yaml and zod) so the editor can read its setting at
 * activation without loading them.
 */

/** Whether agent commands run in a sandbox: strictest last. */
export const SANDBOX_MODES = ['off', 'auto', 'required'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** The stricter of two sandbox modes (off < auto < required). */
export function stricterSandbox(a: SandboxMode | undefined, b: SandboxMode | undefined): SandboxMode | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return SANDBOX_MODES.indexOf(a) >= SANDBOX_MODES.indexOf(b) ? a : b;
}
