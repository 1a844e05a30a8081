/**
 * The developer panel's per-conversation switches (SPEC 2.12): auto-approve, tracing and teams.
 * A new conversation starts with them off. Plan mode is a switch too, but it lives with the
 * conversation's parts (the loop reads it), so the session handles it.
 */
export class SessionSwitches {
  private autoApproveOn = false;
  private tracingOn = false;
  private teamsOn = false;
  private readonly listeners = new Set<() => void>();

  /** Whether the current conversation's tool calls are approved without asking (what must ask still asks). */
  get autoApprove(): boolean {
    return this.autoApproveOn;
  }

  setAutoApprove(on: boolean): void {
    this.autoApproveOn = on;
    this.notify();
  }

  /** Whether the current conversation's model calls are traced (llm_request / llm_response events). */
  get tracing(): boolean {
    return this.tracingOn;
  }

  /** Applies from the next model call on, mid-run included. */
  setTracing(on: boolean): void {
    this.tracingOn = on;
    this.notify();
  }

  /** Whether the lead may start teammates in the current conversation (SPEC 2.8, opt-in). */
  get teams(): boolean {
    return this.teamsOn;
  }

  /** Offers the team tools from the next model call on; switching off leaves running teammates be. */
  setTeams(on: boolean): void {
    this.teamsOn = on;
    this.notify();
  }

  /** Fires when a switch changes, plan mode included (the session calls notify for it). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every switch off, for a new conversation. */
  clear(): void {
    this.autoApproveOn = false;
    this.tracingOn = false;
    this.teamsOn = false;
    this.notify();
  }

  notify(): void {
    for (const listener of this.listeners) listener();
  }
}
