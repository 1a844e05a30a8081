/** Whether agent commands run confined, in one line for the CLI, the status bar and the panel. */
import type { SandboxStatus } from '../ports';

export function describeSandbox(status: SandboxStatus): string {
  if (status.refusal) return `Commands are refused: ${status.refusal}`;
  if (status.confined)
    return `Commands run confined (${status.detail}; ${status.network ? 'network granted by your policy' : 'no network'}).`;
  return `Commands are not confined: ${status.detail.replace(/^commands are not confined: /, '')}.`;
}
