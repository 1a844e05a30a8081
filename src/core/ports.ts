/**
 * The interfaces hosts implement for the core. The core never imports 'vscode': the extension
 * (src/host) and the CLI/tests (src/node) each provide these.
 */

export interface Clock {
  now(): number;
}

/** Where API keys come from: the editor's SecretStorage, or the environment in the CLI. */
export interface SecretSource {
  getApiKey(provider: string): Promise<string | undefined>;
}

/** The result of a command run through a host's shell. */
export interface ShellResult {
  output: string;
  /** Undefined when the shell could not report it. */
  exitCode: number | undefined;
  timedOut: boolean;
  /** Which mechanism ran it, so the agent can tell the user. */
  via: 'shell-integration' | 'child-process';
}

export interface ShellRunOptions {
  cwd?: string;
  timeoutMs: number;
  /** Output beyond this many characters is cut, keeping the end. */
  maxOutputChars: number;
  signal?: AbortSignal;
}

/** Runs shell commands where the user can see them (host: the integrated terminal). */
export interface Shell {
  run(command: string, options: ShellRunOptions): Promise<ShellResult>;
}

/** Where full transcripts go before compaction (JSONL, one message a line). */
export interface TranscriptSink {
  /** Saves the messages and returns where they are (a path or URI to show the user). */
  save(conversationId: string, messages: readonly unknown[]): Promise<string>;
}
