/**
 * The keyboard side of the interactive session. At a prompt, node:readline edits the line
 * (history, Ctrl+C, Ctrl+D); a fresh interface per prompt, so nothing echoes while the agent
 * works. While it works (`busy`), the terminal stays in raw mode: Ctrl+C calls the interrupt
 * handler instead of killing the process, and typing starts a line of its own (`queue› `, see
 * Typeahead) handed to the busy caller on Enter — the agent's output waits meanwhile. Without a
 * terminal (input piped in, `-i`), lines are read in order from the stream and a SIGINT plays
 * the part of Ctrl+C.
 */
import * as readline from 'node:readline';
import type { LineHistory } from './line-history';
import type { Output } from './output';
import { Typeahead } from './typeahead';

export type LineResult = { kind: 'line'; text: string } | { kind: 'interrupt' } | { kind: 'eof' };

export interface ReadOptions {
  /** Use and extend the line history (prompts, not approval answers). */
  history?: boolean;
  /** Gives up on the question (resolves as an interrupt). */
  signal?: AbortSignal;
}

type TtyInput = NodeJS.ReadStream & { setRawMode(mode: boolean): unknown };
type KeyPress = { name?: string; ctrl?: boolean; meta?: boolean; sequence?: string };

export class LineReader {
  /** The question on screen: how to end it from outside (SIGINT, an abort). */
  private current: { interrupt(): void } | undefined;
  private busyInterrupt: (() => void) | undefined;
  /** Where a line typed while busy goes; without it, typing while busy is ignored. */
  private busyLine: ((text: string) => void) | undefined;
  private readonly typeahead: Typeahead;
  /** Text typed while busy that no line took (the work ended, Ctrl+C): it starts the next prompt. */
  private carried = '';
  /** Without a terminal: lines read ahead of their question, and questions waiting for a line. */
  private readonly pending: string[] = [];
  private readonly waiting: Array<(line: string | undefined) => void> = [];
  private ended = false;
  private piped: readline.Interface | undefined;
  /** The listener that keeps keys typed between two prompts is on (see keepIdleKeys). */
  private idleKeys = false;

  constructor(
    private readonly input: NodeJS.ReadStream,
    private readonly prompts: NodeJS.WritableStream,
    private readonly output: Output,
    private readonly history: LineHistory,
  ) {
    process.on('SIGINT', this.onSigint);
    this.typeahead = new Typeahead(prompts, output);
  }

  private get tty(): boolean {
    return Boolean(this.input.isTTY);
  }

  readLine(prompt: string, options: ReadOptions = {}): Promise<LineResult> {
    this.output.newline();
    if (options.signal?.aborted) return Promise.resolve({ kind: 'interrupt' });
    return this.tty ? this.readFromTerminal(prompt, options) : this.readFromPipe(prompt, options);
  }

  /**
   * Runs `work` with Ctrl+C calling `onInterrupt` (possibly more than once) instead of exiting;
   * on a terminal, a line typed meanwhile goes to `onLine` when given.
   */
  async busy<T>(work: Promise<T>, onInterrupt: () => void, onLine?: (text: string) => void): Promise<T> {
    this.busyInterrupt = onInterrupt;
    this.busyLine = onLine;
    if (this.tty) {
      readline.emitKeypressEvents(this.input);
      this.input.on('keypress', this.onKeypress);
      this.rawOn();
    }
    try {
      return await work;
    } finally {
      this.busyInterrupt = undefined;
      this.busyLine = undefined;
      // The work ended while a line was being typed: the next prompt starts with it.
      this.carried += this.typeahead.suspend();
      if (this.tty) {
        this.input.off('keypress', this.onKeypress);
        (this.input as TtyInput).setRawMode(false);
        this.input.pause();
      }
    }
  }

  /** Text the next prompt starts with (a line typed while busy that could not be queued). */
  carry(text: string): void {
    this.carried += text;
  }

  close(): void {
    process.off('SIGINT', this.onSigint);
    this.piped?.close();
    if (this.tty) this.input.pause();
  }

  private readFromTerminal(prompt: string, options: ReadOptions): Promise<LineResult> {
    // A question while a line is being typed (an approval): the line waits, and comes back after.
    const interrupted = this.typeahead.suspend();
    return new Promise((resolve) => {
      const rl = readline.createInterface({
        input: this.input,
        output: this.prompts,
        terminal: true,
        prompt,
        // A copy: readline changes the array it is given.
        history: options.history ? [...this.history.lines] : [],
        historySize: options.history ? 1000 : 0,
        removeHistoryDuplicates: true,
      });
      let settled = false;
      let newHistory: string[] | undefined;
      // Newest first, with the line just entered (readline fires it before "line").
      if (options.history) rl.on('history', (history: string[]) => (newHistory = history));
      const finish = (result: LineResult) => {
        if (settled) return;
        settled = true;
        if (newHistory) this.history.replace(newHistory);
        options.signal?.removeEventListener('abort', onAbort);
        this.current = undefined;
        rl.close();
        this.output.markLineStart();
        // Closing readline left raw mode; the work in progress still listens for Ctrl+C.
        if (this.busyInterrupt) this.rawOn();
        if (interrupted && this.busyLine) this.typeahead.start(interrupted);
        else this.carried += interrupted;
        resolve(result);
      };
      const onAbort = () => {
        if (settled) return;
        this.prompts.write('\n');
        finish({ kind: 'interrupt' });
      };
      rl.on('line', (text) => finish({ kind: 'line', text }));
      rl.on('SIGINT', () => {
        this.prompts.write('^C\n');
        finish({ kind: 'interrupt' });
        // Ctrl+C at a question asked while the agent works (an approval) interrupts the work too.
        this.busyInterrupt?.();
      });
      // Ctrl+D on an empty line closes the interface.
      rl.on('close', () => {
        if (settled) return;
        this.prompts.write('\n');
        finish({ kind: 'eof' });
      });
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.current = { interrupt: () => onAbort() };
      this.keepIdleKeys();
      rl.prompt();
      // What was typed while the agent worked and not sent, or typed ahead while a command ran,
      // starts this prompt (not an approval's answer) — one line at a time: a line entered here
      // closes this prompt, and the next prompt takes the line after it.
      if (options.history && this.carried) {
        const end = /\r\n?|\n/.exec(this.carried);
        const take = end ? end.index + end[0].length : this.carried.length;
        const text = this.carried.slice(0, take);
        this.carried = this.carried.slice(take);
        rl.write(text);
      }
    });
  }

  private readFromPipe(prompt: string, options: ReadOptions): Promise<LineResult> {
    if (!this.piped) {
      this.piped = readline.createInterface({ input: this.input, terminal: false });
      this.piped.on('line', (line) => {
        const waiter = this.waiting.shift();
        if (waiter) waiter(line);
        else this.pending.push(line);
      });
      this.piped.on('close', () => {
        this.ended = true;
        for (const waiter of this.waiting.splice(0)) waiter(undefined);
      });
    }
    this.prompts.write(prompt);
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: LineResult) => {
        if (settled) return;
        settled = true;
        this.current = undefined;
        options.signal?.removeEventListener('abort', onAbort);
        // The line was not echoed by a terminal: show it, so the transcript reads as a session.
        this.prompts.write(result.kind === 'line' ? `${result.text}\n` : '\n');
        this.output.markLineStart();
        resolve(result);
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(take);
        if (index >= 0) this.waiting.splice(index, 1);
        finish({ kind: 'interrupt' });
      };
      const take = (line: string | undefined) =>
        finish(line === undefined ? { kind: 'eof' } : { kind: 'line', text: line });
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.current = { interrupt: onAbort };
      if (this.pending.length > 0) take(this.pending.shift());
      else if (this.ended) take(undefined);
      else this.waiting.push(take);
    });
  }

  /**
   * Keys typed ahead between two prompts are kept for the next one. Several lines typed at once
   * arrive in one chunk: the prompt that takes the first line closes in the middle of it, and
   * the rest of the chunk would reach no one (node:readline decodes a whole chunk at once).
   */
  private keepIdleKeys(): void {
    if (this.idleKeys) return;
    this.idleKeys = true;
    // First in line: a key a prompt takes is seen here while that prompt is still on screen.
    this.input.prependListener('keypress', (text: string | undefined, key: KeyPress | undefined) => {
      if (this.current || this.busyInterrupt) return;
      if (key?.name === 'return' || key?.name === 'enter') this.carried += '\r';
      else if (key?.name === 'backspace') this.carried = this.carried.replace(/[^\r\n]$/u, '');
      else if (text && !key?.ctrl && !key?.meta && !/[\p{Cc}]/u.test(text)) this.carried += text;
    });
  }

  private rawOn(): void {
    (this.input as TtyInput).setRawMode(true);
    this.input.resume();
  }

  private readonly onKeypress = (text: string | undefined, key: KeyPress | undefined) => {
    // A question on screen handles its own keys (readline turns Ctrl+C into its SIGINT event).
    if (this.current) return;
    if (key?.ctrl && key.name === 'c') {
      // The line being typed is kept for the feedback prompt that follows.
      this.carried += this.typeahead.suspend();
      this.busyInterrupt?.();
      return;
    }
    if (!this.busyLine) return;
    const line = this.typeahead.key(text, key);
    if (line !== undefined) this.busyLine(line);
  };

  /** A real SIGINT: without a terminal, or between raw-mode stretches. */
  private readonly onSigint = () => {
    if (!this.current && !this.busyInterrupt) process.exit(130);
    this.current?.interrupt();
    this.busyInterrupt?.();
  };
}
