/**
 * The shared vocabulary the webviews may use, re-exported from the core's neutral events
 * module: a webview imports only protocol/ (and its own files), never the core directly.
 */
export type { AgentEvent, AgentEventType, ApprovalDecisionSource, ContextBreakdown } from '../core/events/events';
export { addUsage, type TokenUsage } from '../core/events/usage';
export { modelLabel } from '../core/llm/provider-presets';
export {
  CONTEXT_PARTS,
  contextUsed,
  describeCacheBreak,
  describeContextParts,
  describeContextTotal,
  describeCostWarning,
  formatCount,
  formatUsd,
  isMainCall,
} from '../core/events/cost-notes';
export {
  describeToolOutcome,
  endedOutcome,
  nextToolOutcome,
  toolCallTarget,
  type ToolOutcome,
  type ToolOutcomeState,
} from '../core/events/tool-outcome';
export { isReviewEvent, ReviewState, type FileReview } from '../core/review/review-state';
