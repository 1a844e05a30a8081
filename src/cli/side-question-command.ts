/**
 * `/btw <question>`: a side question about the conversation, answered by one model call without
 * tools and never added to the conversation (core/session/side-questions.ts). At the prompt it
 * waits for the answer (Ctrl+C stops it); typed while the agent works it is asked at once and
 * its answer printed, dimmed and labelled, at the next line break of the agent's output — the
 * running turn goes on untouched.
 */
import type { SideAnswer } from '../core/session/side-questions';
import { formatNumber } from './event-printer';
import type { Output } from './output';
import type { CommandContext } from './slash-commands';

/** Whether a line typed is a side question (`/btw`, `/btw …`). */
export function isSideQuestion(line: string): boolean {
  return /^\/btw(\s|$)/i.test(line.trim());
}

/** The question of a `/btw` line. */
export function sideQuestionOf(line: string): string {
  return line.trim().replace(/^\/btw/i, '');
}

export const sideQuestionCommand = {
  name: 'btw',
  usage: '/btw question',
  help: 'a side question about the conversation: answered apart, without tools, not kept in it',
  async run(argument: string, { cli, output, busy }: CommandContext): Promise<void> {
    const sideQuestions = cli.session.sideQuestions;
    const answer = await busy(sideQuestions.ask(argument), () => sideQuestions.stop());
    output.aside(describeSideAnswer(answer, output));
  },
};

/** Asks a side question typed while the agent works; the answer is printed when it comes. */
export function askAside(line: string, { cli, output }: Pick<CommandContext, 'cli' | 'output'>): void {
  output.aside(output.style.dim('btw: asked beside the agent; the answer follows when it comes.'));
  void cli.session.sideQuestions.ask(sideQuestionOf(line)).then((answer) => {
    output.aside(describeSideAnswer(answer, output));
  });
}

/** The answer as a labelled block: the question, the answer, and what it cost (or why there is none). */
export function describeSideAnswer(answer: SideAnswer, output: Output): string {
  const { style } = output;
  const question = answer.question.replace(/\s+/g, ' ');
  const head = style.dim(`╭ btw: ${question.length > 100 ? `${question.slice(0, 99)}…` : question}`);
  const lines = [head];
  if (answer.text)
    lines.push(
      ...answer.text
        .trimEnd()
        .split('\n')
        .map((line) => `${style.dim('│')} ${line}`),
    );
  if (answer.status === 'refused' || answer.status === 'failed')
    lines.push(`${style.dim('│')} ${style.red(answer.note ?? `The side question ${answer.status}.`)}`);
  else if (answer.note) lines.push(`${style.dim('│')} ${style.yellow(answer.note)}`);
  const usage = answer.usage;
  const cost = usage
    ? ` · ${formatNumber(usage.inputTokens)} in, ${formatNumber(usage.outputTokens)} out${usage.costUsd ? `, $${usage.costUsd.toFixed(4)}` : ''}`
    : '';
  lines.push(style.dim(`╰ side answer, not kept in the conversation${cost}`));
  return lines.join('\n');
}
