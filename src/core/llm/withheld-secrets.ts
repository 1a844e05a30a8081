/**
 * Keeps every secret the product holds (HeldSecrets: provider keys, telemetry headers, MCP
 * servers' keys…) out of what a model is sent (issue 32, item 3). A tool output, an MCP result,
 * an attached file or an instruction file can carry one; once in the context, a model can give
 * it back in any form no redactor finds (spaced out, reversed, spelled in words), and it goes
 * to that provider — which, for a key of another route, is a leak in itself. So a held secret
 * is replaced in the request itself, whole, in part or encoded (secret-matcher.ts), before it
 * leaves: what the model never had, it cannot echo.
 */
import type { LlmClient, LlmRequest, LlmStreamPart } from './llm-client';
import { redactKnownValue, type TextMemo } from './redact';
import type { SecretMatcher } from './secret-matcher';

export function withSecretsWithheld(client: LlmClient, matcher: () => SecretMatcher): LlmClient {
  const memo = new RequestTexts();
  return {
    provider: client.provider,
    listModels: (signal) => client.listModels(signal),
    server: client.server,
    stream(request: LlmRequest): AsyncIterable<LlmStreamPart> {
      const current = matcher();
      // Parts without a secret stay the same objects (and the signal is no plain object).
      return client.stream(redactKnownValue(request, current, memo.next(current)));
    },
  };
}

/**
 * The texts of the last request and what they became: the history is sent again with every
 * call, so each text of it is looked at once (per set of secrets), not once per call. Only the
 * last request's texts are kept; history parts may change in place (compaction), texts cannot.
 */
class RequestTexts implements TextMemo {
  private matcher: SecretMatcher | undefined;
  private previous = new Map<string, string>();
  private current = new Map<string, string>();

  /** Starts a request redacted with `matcher`. */
  next(matcher: SecretMatcher): this {
    this.previous = matcher === this.matcher ? this.current : new Map();
    this.current = new Map();
    this.matcher = matcher;
    return this;
  }

  get(text: string): string | undefined {
    const known = this.previous.get(text);
    if (known !== undefined) this.current.set(text, known);
    return known;
  }

  set(text: string, redacted: string): void {
    this.current.set(text, redacted);
  }
}
