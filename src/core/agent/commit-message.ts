/**
 * A conventional-commit message for a staged diff, from one model call (no tools). Big diffs
 * are cut so the request stays small; the model is told.
 */
import type { LlmClient } from '../llm/llm-client';

const MAX_DIFF_CHARS = 60_000;

const SYSTEM =
  'You write git commit messages in the Conventional Commits format: a subject line "type(scope): summary" ' +
  '(types: feat, fix, refactor, docs, test, build, ci, chore, perf, style; scope optional; imperative mood; at most ' +
  '72 characters), then a blank line and a short body saying what changed and why when that is not obvious. ' +
  'Answer with the message only: no code fences, no commentary.';

export async function writeCommitMessage(
  llm: LlmClient,
  model: string,
  stagedDiff: string,
  signal?: AbortSignal,
): Promise<string> {
  const cut = stagedDiff.length > MAX_DIFF_CHARS;
  const diff = cut
    ? `${stagedDiff.slice(0, MAX_DIFF_CHARS)}\n[… diff cut: ${stagedDiff.length - MAX_DIFF_CHARS} more characters]`
    : stagedDiff;
  let text = '';
  for await (const part of llm.stream({
    model,
    system: SYSTEM,
    messages: [
      { role: 'user', content: [{ type: 'text', text: `Write the commit message for this staged diff:\n\n${diff}` }] },
    ],
    tools: [],
    maxOutputTokens: 400,
    signal,
  })) {
    if (part.type === 'text_delta') text += part.text;
  }
  return text.replace(/^```[a-z]*\n?|\n?```$/g, '').trim();
}
