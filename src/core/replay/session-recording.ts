/**
 * Recording as a conversation session does it: what only the composition root knows (the
 * product's version, the place's commit, the preset, the policy and where it came from) comes
 * in as `SessionRecordingOptions`; the session adds what it knows (the routed models, limits,
 * the conversation a fork came from, the turn's changed files) and gets a RunRecorder.
 */
import { DEFAULT_LIMITS, type AgentLimits } from '../agent/agent-loop';
import type { KnownSecrets } from '../llm/redact';
import type { ConversationStore, StoredConversation } from '../ports';
import type { RoutedModels } from '../session/model-routing';
import { contentOf } from './content-hash';
import type { RunManifest } from './recording';
import { RunRecorder, type ManifestBasis } from './run-recorder';

/** What the kit or the CLI gives a session so its runs are recorded (`ConversationSessionDeps.recording`). */
export interface SessionRecordingOptions {
  /** The product's version (package.json). */
  product: string;
  /** A workspace folder or a worktree of the sessions feature. Default: workspace. */
  placeKind?: RunManifest['place']['kind'];
  /** The commit HEAD names and the branch, when the place is a git repository (a port: the core never runs git). */
  head?: (root: string) => Promise<{ commit?: string; branch?: string } | undefined>;
  /** The preset in use, by name. */
  preset?: () => string | undefined;
  /** The effective policy (hashed as its canonical JSON) and the files it came from. */
  policy?: () => { value: unknown; sources: string[] } | undefined;
}

/** What the session knows, read when a conversation's first run begins. */
export interface SessionRecordingState {
  store: () => Promise<ConversationStore | undefined>;
  routed: () => RoutedModels | undefined;
  limits: () => Partial<AgentLimits>;
  root: () => string | undefined;
  secrets: () => KnownSecrets;
  now: () => number;
  onError: (error: unknown) => void;
  /** The current turn's changed files (the conversation's checkpoints), absolute paths. */
  changedFiles: () => { turn: number; root: string; paths: readonly string[] } | undefined;
}

/** A recorder for every conversation of one session. */
export function createSessionRecorder(
  options: SessionRecordingOptions,
  state: SessionRecordingState,
): { recorder: RunRecorder; follow(conversation: { id: string; stored?: StoredConversation }): void } {
  const forks = new Map<string, RunManifest['forkedFrom']>();
  const basis = async (conversationId: string): Promise<ManifestBasis> => {
    const root = state.root() ?? '';
    const head = root ? await options.head?.(root).catch(() => undefined) : undefined;
    const routed = state.routed();
    const policy = options.policy?.();
    const configured = state.limits();
    const limits: RunManifest['limits'] = { ...DEFAULT_LIMITS };
    for (const [key, value] of Object.entries(configured)) if (value !== undefined) limits[key] = value;
    const preset = options.preset?.();
    const forkedFrom = forks.get(conversationId);
    return {
      product: options.product,
      place: {
        kind: options.placeKind ?? 'workspace',
        root,
        ...(head?.commit ? { commit: head.commit } : {}),
        ...(head?.branch ? { branch: head.branch } : {}),
      },
      models: routed
        ? [
            { work: routed.work, binding: routed.main },
            { work: 'compaction', binding: routed.compaction },
            { work: 'final_summary', binding: routed.finalSummary },
            { work: 'subagent', binding: routed.subagent },
          ].map(({ work, binding }) => ({ work, provider: binding.llm.provider, model: binding.model }))
        : [],
      ...(preset ? { preset } : {}),
      policy: policy ? { hash: contentOf(policy.value).ref, sources: policy.sources } : { hash: '', sources: [] },
      limits,
      ...(forkedFrom ? { forkedFrom } : {}),
    };
  };
  const recorder = new RunRecorder({
    store: async () => (await state.store())?.recordings,
    basis,
    secrets: state.secrets,
    now: state.now,
    onError: state.onError,
    changedFiles: () => state.changedFiles(),
  });
  return {
    recorder,
    follow: ({ id, stored }) => {
      const origin = stored?.forkedFrom;
      if (origin) forks.set(id, { conversationId: origin.conversationId, seq: origin.seq });
      recorder.follow(id, { resumed: stored !== undefined });
    },
  };
}
