/**
 * How a run's failures are named in its events: the `error` event's words and kind (which fix a
 * surface offers), and how a model call ended early (the user stopping it is no error of the call).
 */
import type { ErrorKind } from '../events/events';
import { LlmError } from '../llm/llm-client';
import { BudgetExceededError } from '../policy/budget';
import { HookError } from './hooks';

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** How a model call ended early: the user stopping it is no error of the call. */
export function callFailure(error: unknown): ErrorKind | 'interrupted' {
  const aborted = error instanceof Error && (error.name === 'AbortError' || error.name === 'APIUserAbortError');
  return aborted ? 'interrupted' : errorKind(error);
}

export function errorKind(error: unknown): ErrorKind {
  if (error instanceof LlmError) return error.kind;
  if (error instanceof HookError) return 'hook';
  if (error instanceof BudgetExceededError) return 'budget';
  return 'internal';
}
