/**
 * The last command run in any integrated terminal with shell integration (the user's or the
 * agent's) and its output, for the @terminal mention. Output is read as it streams, escape
 * sequences stripped and capped, keeping the end.
 */
import * as vscode from 'vscode';
import { OutputCollector } from '../../core/text/terminal-output';

const MAX_CHARS = 30_000;

export class TerminalHistory implements vscode.Disposable {
  private last: { terminal: string; command: string; output: OutputCollector; exitCode?: number } | undefined;
  private readonly listeners: vscode.Disposable[];

  constructor() {
    this.listeners = [
      vscode.window.onDidStartTerminalShellExecution(async (event) => {
        const entry = {
          terminal: event.terminal.name,
          command: event.execution.commandLine.value,
          output: new OutputCollector(MAX_CHARS),
          exitCode: undefined as number | undefined,
        };
        this.last = entry;
        for await (const chunk of event.execution.read()) entry.output.push(chunk);
      }),
      vscode.window.onDidEndTerminalShellExecution((event) => {
        if (this.last?.command === event.execution.commandLine.value) this.last.exitCode = event.exitCode;
      }),
    ];
  }

  /** The last command with its output, or undefined when no terminal has run one yet. */
  describe(): string | undefined {
    const last = this.last;
    if (!last) return undefined;
    const exit = last.exitCode === undefined ? '' : ` (exit code ${last.exitCode})`;
    return `Terminal "${last.terminal}": $ ${last.command}${exit}\n${last.output.result()}`;
  }

  dispose(): void {
    for (const listener of this.listeners) listener.dispose();
  }
}
