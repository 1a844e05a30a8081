/**
 * Runs commands in the integrated terminal named "OpenAgent", through shell integration, so
 * the user sees every command the agent runs and its output. Where shell integration does not
 * come up (an unsupported shell, or it is turned off), the fallback runs the command in a child
 * process and the result says so.
 */
import * as vscode from 'vscode';
import { onAbort } from '../../core/abort';
import type { Shell, ShellResult, ShellRunOptions } from '../../core/ports';
import { OutputCollector } from '../../core/text/terminal-output';
import type { OsSandbox } from '../../node/sandbox/os-sandbox';
import { terminalShell } from '../../node/windows/windows-shell';

export const TERMINAL_NAME = 'OpenAgent';
/** Commands running longer than this show a cancellable progress notification. */
const PROGRESS_AFTER_MS = 3_000;
/**
 * How long a new terminal gets to activate shell integration. VS Code injects it into these
 * shells, which can take well over ten seconds on a loaded machine: they get a generous
 * deadline (it costs time only where integration is broken, once per terminal). Other shells
 * rarely get it and are not waited for long; with integration turned off, not at all.
 */
const INJECTED_SHELLS = /^(bash|zsh|fish|pwsh|powershell)(\.exe)?$/i;
const SHELL_INTEGRATION_WAIT_MS = { injected: 60_000, other: 10_000 };

export class TerminalShell implements Shell, vscode.Disposable {
  private terminal: vscode.Terminal | undefined;
  /** Terminals whose shell integration did not come in time: not waited for again. */
  private readonly withoutIntegration = new WeakSet<vscode.Terminal>();
  private readonly closeListener: vscode.Disposable;

  constructor(
    private readonly fallback: Shell,
    private readonly cwd: () => string | undefined,
    /** Confines commands (the line shown is `bwrap --args 3 -- bash -c '<command>' 3<…`). */
    private readonly sandbox?: OsSandbox,
    /** The terminal's name: "OpenAgent", or "OpenAgent: <session>" for a session's own. */
    private readonly name: string = TERMINAL_NAME,
  ) {
    this.closeListener = vscode.window.onDidCloseTerminal((closed) => {
      if (closed === this.terminal) this.terminal = undefined;
    });
  }

  async run(command: string, options: ShellRunOptions): Promise<ShellResult> {
    // A command still running after a few seconds gets a progress notification with Cancel.
    const cancel = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, cancel.signal]) : cancel.signal;
    const running = this.runVisible(command, { ...options, signal });
    const timer = setTimeout(() => showProgress(command, running, cancel), PROGRESS_AFTER_MS);
    try {
      const result = await running;
      return cancel.signal.aborted
        ? { ...result, output: `[stopped by the user from the progress notification]\n${result.output}` }
        : result;
    } finally {
      clearTimeout(timer);
    }
  }

  private async runVisible(command: string, options: ShellRunOptions): Promise<ShellResult> {
    // Windows without a bash: nothing runs (no terminal is opened), and the result says what to install.
    const windows = this.sandbox?.windowsBash();
    if (windows && 'missing' in windows)
      return { output: windows.missing, exitCode: undefined, timedOut: false, via: 'shell-integration' };
    const terminal = this.ensureTerminal();
    const integration = await this.shellIntegration(terminal);
    if (!integration) {
      // The fallback confines (or refuses) the command itself.
      const result = await this.fallback.run(command, { ...options, cwd: options.cwd ?? this.cwd() });
      return { ...result, output: `[shell integration is unavailable; ran in a background process]\n${result.output}` };
    }
    let confined: ReturnType<OsSandbox['terminalLine']> | undefined;
    try {
      confined = this.sandbox?.terminalLine(command, {
        cwd: options.cwd ?? this.cwd(),
        ...(options.unconfined ? { unconfined: true } : {}),
      });
    } catch (error) {
      // `sandbox: required` and no sandbox: nothing runs.
      return { output: (error as Error).message, exitCode: undefined, timedOut: false, via: 'shell-integration' };
    }
    const result = await runWithIntegration(integration, confined?.line ?? command, options);
    // Stopped by a timeout, the command may still be running: what protects it stays.
    if (result.timedOut) return result;
    const note = confined?.afterRun();
    return note ? { ...result, output: `${result.output}\n${note}` } : result;
  }

  /** The terminal's shell integration once it is active; undefined when it does not come. */
  private async shellIntegration(terminal: vscode.Terminal): Promise<vscode.TerminalShellIntegration | undefined> {
    if (terminal.shellIntegration) return terminal.shellIntegration;
    if (this.withoutIntegration.has(terminal)) return undefined;
    const windows = this.sandbox?.windowsBash();
    const shell = windows && 'bash' in windows ? windows.bash.path : undefined;
    const integration = await waitForShellIntegration(terminal, shellIntegrationWaitMs(shell));
    if (!integration) this.withoutIntegration.add(terminal);
    return integration;
  }

  dispose(): void {
    this.closeListener.dispose();
    this.terminal?.dispose();
  }

  private ensureTerminal(): vscode.Terminal {
    if (!this.terminal || this.terminal.exitStatus !== undefined) {
      // Secrets are removed from the terminal's environment (null unsets a variable).
      const kept = this.sandbox?.environment();
      const env = kept
        ? Object.fromEntries(
            Object.keys(process.env)
              .filter((name) => !(name in kept))
              .map((name) => [name, null]),
          )
        : undefined;
      // On Windows the terminal runs the bash commands run in, so the line typed is read as bash.
      const windows = this.sandbox?.windowsBash();
      const shell = windows && 'bash' in windows ? terminalShell(windows.bash) : undefined;
      this.terminal = vscode.window.createTerminal({
        name: this.name,
        cwd: this.cwd(),
        isTransient: true,
        ...(shell ? { shellPath: shell.shellPath, shellArgs: shell.shellArgs } : {}),
        ...(env || shell ? { env: { ...env, ...shell?.env } } : {}),
      });
    }
    this.terminal.show(true);
    return this.terminal;
  }
}

function showProgress(command: string, running: Promise<unknown>, cancel: AbortController): void {
  const shown = command.length > 60 ? `${command.slice(0, 59)}…` : command;
  void vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `OpenAgent is running \`${shown}\``, cancellable: true },
    (_progress, token) => {
      token.onCancellationRequested(() => cancel.abort());
      return running.catch(() => undefined);
    },
  );
}

function shellIntegrationWaitMs(shellPath: string | undefined): number {
  const settings = vscode.workspace.getConfiguration('terminal.integrated');
  if (!settings.get<boolean>('shellIntegration.enabled', true)) return 0;
  const shell = (shellPath || vscode.env.shell || process.env.SHELL || '').split(/[\\/]/).pop() ?? '';
  return INJECTED_SHELLS.test(shell) ? SHELL_INTEGRATION_WAIT_MS.injected : SHELL_INTEGRATION_WAIT_MS.other;
}

function waitForShellIntegration(
  terminal: vscode.Terminal,
  timeoutMs: number,
): Promise<vscode.TerminalShellIntegration | undefined> {
  if (terminal.shellIntegration) return Promise.resolve(terminal.shellIntegration);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      listener.dispose();
      resolve(undefined);
    }, timeoutMs);
    const listener = vscode.window.onDidChangeTerminalShellIntegration((event) => {
      if (event.terminal !== terminal) return;
      clearTimeout(timer);
      listener.dispose();
      resolve(event.shellIntegration);
    });
  });
}

async function runWithIntegration(
  integration: vscode.TerminalShellIntegration,
  command: string,
  options: ShellRunOptions,
): Promise<ShellResult> {
  const execution = integration.executeCommand(command);
  // Subscribe before reading: a fast command can end while the stream is being set up.
  const exitCode = new Promise<number | undefined>((resolve) => {
    const listener = vscode.window.onDidEndTerminalShellExecution((event) => {
      if (event.execution !== execution) return;
      listener.dispose();
      resolve(event.exitCode);
    });
  });
  const output = new OutputCollector(options.maxOutputChars);
  let timedOut = false;
  const reading = (async () => {
    for await (const data of execution.read()) output.push(data);
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.timeoutMs);
  });
  let unlinkAbort = () => {};
  const aborted = new Promise<'aborted'>(
    (resolve) => (unlinkAbort = onAbort(options.signal, () => resolve('aborted'))),
  );
  const outcome = await Promise.race([reading.then(() => 'read' as const), deadline, aborted]);
  clearTimeout(timer);
  unlinkAbort();
  let code: number | undefined;
  if (outcome === 'read') {
    code = await Promise.race([exitCode, new Promise<undefined>((resolve) => setTimeout(resolve, 2_000))]);
  } else {
    timedOut = outcome === 'timeout';
    // Interrupt the command the way a user would: Ctrl+C in its terminal.
    vscode.window.terminals.find((terminal) => terminal.shellIntegration === integration)?.sendText('\x03', false);
  }
  return {
    output: output.result(),
    exitCode: code,
    timedOut,
    via: 'shell-integration',
  };
}
