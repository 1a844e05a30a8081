/**
 * The interactive session: a prompt with line history; what is typed goes to the agent, or to
 * a slash command. Ctrl+C while the agent works stops it and asks for `feedback> `: typed text
 * redirects it (the conversation goes on from where it stopped, with the feedback as the next
 * message), an empty line returns to the prompt. Ctrl+C at the prompt warns once and quits the
 * second time; Ctrl+D quits. A line typed while the agent works is queued (see Typeahead) and
 * sent after the run ends normally; after Ctrl+C or a failure the queue waits for `/queue send`.
 */
import { describeSandbox } from '../core/policy/sandbox-status';
import type { CliContext } from './compose';
import { EventPrinter } from './event-printer';
import type { LineReader } from './line-reader';
import { describeModel } from './model-choice';
import type { Output } from './output';
import { runUntilIdle, setupMessage } from './run-prompt';
import type { SubmitProblem } from '../core/session/conversation-session';
import type { QueuedPrompt } from '../core/session/prompt-queue';
import { describeHold } from './queue-command';
import { runSlashCommand, type CommandContext } from './slash-commands';
import { askAside, isSideQuestion } from './side-question-command';

export const PROMPT = 'openagent> ';
export const FEEDBACK_PROMPT = 'feedback> ';
export const QUIT_HINT = '(press Ctrl+C again or type /exit to quit)';

export interface ReplDeps {
  cli: CliContext;
  reader: LineReader;
  output: Output;
  env: NodeJS.ProcessEnv;
  storeDirectory: string;
  workspaceRoot: string;
  approveAll: CommandContext['approveAll'];
}

export class Repl {
  private quitting = false;
  /** Set while a reopened conversation replays its events: they are not printed again. */
  private muted = false;

  constructor(private readonly deps: ReplDeps) {
    const printer = new EventPrinter(deps.output);
    deps.cli.session.onEvent((event) => {
      if (!this.muted) printer.print(event);
    });
  }

  /** Runs until the user quits; `firstPrompt` (from the command line) is answered first. */
  async run(firstPrompt?: string): Promise<void> {
    const { output, reader, cli } = this.deps;
    output.line(
      `${output.style.bold('OpenAgent')} · ${describeModel(cli.settings)} · ${this.deps.workspaceRoot}\n` +
        output.style.dim('/help lists the commands · Ctrl+C stops the agent · Ctrl+D quits'),
    );
    output.line(output.style.dim(describeSandbox(cli.sandboxStatus())));
    if (firstPrompt) await this.answer(firstPrompt);
    let warnedQuit = false;
    while (!this.quitting) {
      const input = await reader.readLine(PROMPT, { history: true });
      if (input.kind === 'eof') break;
      if (input.kind === 'interrupt') {
        if (warnedQuit) break;
        warnedQuit = true;
        output.line(output.style.dim(QUIT_HINT));
        continue;
      }
      warnedQuit = false;
      const text = input.text.trim();
      if (!text) continue;
      if (text.startsWith('/')) {
        if ((await this.command(text)) === 'exit') break;
        continue;
      }
      await this.answer(text);
    }
  }

  /** Answers a prompt, and after each Ctrl+C the feedback that redirects the agent. */
  private answer(prompt: string): Promise<void> {
    return this.drive(() => this.deps.cli.session.submitWithMentions(prompt, this.deps.cli.resolveMention));
  }

  /** `/queue send`: a held queue goes on, and the session is waited for as for a prompt. */
  private sendQueued(): Promise<void> {
    const queue = this.deps.cli.session.queue;
    return this.drive(async () => {
      const first = queue.state.items[0];
      if (!first || !queue.resume()) return 'nothing';
      this.announce(first);
      return undefined;
    });
  }

  /** A queued message going out: shown as the prompt it now is. */
  private readonly announce = (queued: QueuedPrompt): void => {
    const { output } = this.deps;
    output.line(`${output.style.cyan('›')} ${queued.text} ${output.style.dim('(queued)')}`);
  };

  /**
   * Runs what `begin` starts until the agent has nothing left to do (queued messages included),
   * then, after a Ctrl+C, asks for the feedback that redirects it.
   */
  private async drive(begin: () => Promise<SubmitProblem | undefined | 'nothing'>): Promise<void> {
    const { output, reader, cli } = this.deps;
    let start: typeof begin | undefined = begin;
    while (start) {
      let outcome;
      try {
        outcome = await runUntilIdle(
          cli.session,
          start,
          (work, stop) => reader.busy(work, stop, this.queueTyped),
          this.announce,
        );
      } catch (error) {
        // Setting the conversation up failed (a preset file, the disk): say so and keep the session.
        output.error(`error: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
      start = undefined;
      if (outcome.kind === 'setup') output.error(`error: ${setupMessage(outcome.problem, cli.settings.provider)}`);
      if (outcome.kind === 'interrupted' && outcome.beforeRun) output.line(output.style.yellow('(interrupted)'));
      if (outcome.kind !== 'interrupted') break;
      output.line(output.style.dim('Type feedback to redirect the agent, or press Enter to return to the prompt.'));
      const feedback = await reader.readLine(FEEDBACK_PROMPT, { history: true });
      if (feedback.kind === 'eof') this.quitting = true;
      const text = feedback.kind === 'line' ? feedback.text.trim() : '';
      // A side question here is one too: answered apart, never the agent's next message.
      if (isSideQuestion(text)) await this.command(text);
      else if (text) start = () => cli.session.submitWithMentions(text, cli.resolveMention);
    }
    const state = cli.session.queue.state;
    if (state.held && state.items.length > 0)
      output.line(
        output.style.dim(
          `${state.items.length} queued message${state.items.length === 1 ? '' : 's'} ${describeHold(state)}: /queue lists them, /queue send sends them.`,
        ),
      );
  }

  /** A line typed while the agent works: queued, or (the agent stopping or done) the next prompt's start. */
  private readonly queueTyped = (text: string): void => {
    const { cli, output, reader } = this.deps;
    // A side question is asked now, beside the agent; never queued as a prompt.
    if (isSideQuestion(text)) return askAside(text, { cli, output });
    // Its @image mentions are read when it is sent, as a prompt's are (without the resolver they
    // went out as words and the picture was lost).
    const queued = cli.session.queue.enqueue(text.trim(), cli.resolveMention);
    if (!queued) return reader.carry(text);
    if ('reason' in queued) {
      output.error(`Not queued: ${queued.message}`);
      return reader.carry(text);
    }
    const waiting = cli.session.queue.length;
    output.line(
      output.style.dim(`Queued (${waiting} waiting): sent when the agent finishes. /queue lists or changes them.`),
    );
  };

  private async command(line: string): Promise<'exit' | void> {
    const { cli, output, env, storeDirectory, approveAll, reader } = this.deps;
    try {
      return await runSlashCommand(line, {
        cli,
        output,
        env,
        storeDirectory,
        approveAll,
        busy: (work, stop) => reader.busy(work, stop),
        sendQueued: () => this.sendQueued(),
        ask: async (question) => {
          const answer = await reader.readLine(question);
          return answer.kind === 'line' ? answer.text : undefined;
        },
        send: (text) => this.answer(text),
        quiet: async (work) => {
          this.muted = true;
          try {
            return await work();
          } finally {
            this.muted = false;
          }
        },
      });
    } catch (error) {
      // A failing command (the store, the disk) is reported; the session goes on.
      output.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
