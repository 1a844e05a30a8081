/**
 * The recorder redacts the same long texts again and again: a tool's output when its step is
 * kept, then inside every request that carries it (the history is sent with each call). What a
 * text became is kept here for the secrets it was redacted with, so each long text is looked at
 * once. Bounded: past MAX_CHARS of texts it starts again (a cost, never a wrong answer).
 */
import type { KnownSecrets, TextMemo } from '../llm/redact';

const MAX_CHARS = 32 * 1024 * 1024;

export class RedactedTexts implements TextMemo {
  private secrets: KnownSecrets | undefined;
  private readonly texts = new Map<string, string>();
  private chars = 0;

  /** The memo for `secrets`: emptied when they are not the ones the texts were redacted with. */
  for(secrets: KnownSecrets): TextMemo {
    if (secrets !== this.secrets) {
      this.secrets = secrets;
      this.clear();
    }
    return this;
  }

  get(text: string): string | undefined {
    return this.texts.get(text);
  }

  set(text: string, redacted: string): void {
    this.chars += text.length + (redacted === text ? 0 : redacted.length);
    if (this.chars > MAX_CHARS) this.clear();
    this.texts.set(text, redacted);
  }

  private clear(): void {
    this.texts.clear();
    this.chars = 0;
  }
}
