/**
 * `/queue`: the messages typed while the agent worked (SPEC 1.3, the CLI's share of the queue).
 * They go out by themselves after a normal end; after Ctrl+C or a failure they wait, and this
 * command lists them, sends them (`send`), changes one (`edit N text`) or drops them.
 */
import type { QueueState } from '../core/session/prompt-queue';
import type { CommandContext } from './slash-commands';
import type { Output } from './output';

const USAGE = 'Usage: /queue, /queue send, /queue edit N new text, /queue drop N, /queue clear.';

export const queueCommand = {
  name: 'queue',
  usage: '/queue [send|edit N text|drop N|clear]',
  help: 'messages typed while the agent worked: list, send, edit or drop them',
  async run(argument: string, { cli, output, sendQueued }: CommandContext): Promise<void> {
    const queue = cli.session.queue;
    const [, word = '', rest = ''] = /^(\S*)\s*([\s\S]*)$/.exec(argument.trim()) ?? [];
    const items = queue.state.items;
    const numbered = (text: string): { id: string } | undefined => {
      const index = Number(text) - 1;
      return Number.isInteger(index) && index >= 0 ? items[index] : undefined;
    };
    switch (word.toLowerCase()) {
      case '':
        return listQueue(queue.state, output);
      case 'send':
        if (items.length === 0) return output.line('Nothing is queued.');
        return sendQueued();
      case 'clear':
        for (const item of items) queue.remove(item.id);
        return output.line(items.length ? `Dropped ${count(items.length)}.` : 'Nothing is queued.');
      case 'drop': {
        const item = numbered(rest.trim());
        if (!item) return output.error(`No queued message ${rest.trim() || '(number missing)'}. ${USAGE}`);
        queue.remove(item.id);
        return output.line(`Dropped message ${rest.trim()}.`);
      }
      case 'edit': {
        const [, number = '', text = ''] = /^(\S*)\s*([\s\S]*)$/.exec(rest) ?? [];
        const item = numbered(number);
        if (!item || !text.trim()) return output.error(USAGE);
        const result = queue.edit(item.id, text);
        if (result === 'edited') return output.line(`Message ${number} is now: ${text.trim()}`);
        return output.error(result === 'gone' ? `Message ${number} was sent already.` : result.message);
      }
      default:
        return output.error(USAGE);
    }
  },
};

export function listQueue(state: QueueState, output: Output): void {
  if (state.items.length === 0) return output.line('Nothing is queued.');
  output.line(`${count(state.items.length)} ${describeHold(state)}:`);
  state.items.forEach((item, index) => output.line(`  ${index + 1}. ${firstLine(item.text)}`));
  if (state.held)
    output.line(output.style.dim('/queue send sends them in order; /queue drop N or /queue clear drops them.'));
}

/** Why the queue waits, or that it does not. */
export function describeHold(state: QueueState): string {
  if (!state.held) return 'queued, sent when the agent finishes';
  if (state.held.kind === 'stopped') return 'waiting because you stopped the agent';
  if (state.held.kind === 'reloaded') return 'waiting from before';
  return `waiting because the last run did not finish${state.held.reason ? ` (${state.held.reason})` : ''}`;
}

function count(n: number): string {
  return `${n} message${n === 1 ? '' : 's'}`;
}

function firstLine(text: string): string {
  const [first = ''] = text.split('\n');
  const short = first.length > 100 ? `${first.slice(0, 100)}…` : first;
  return text.includes('\n') || first.length > 100 ? `${short} (…)` : short;
}
