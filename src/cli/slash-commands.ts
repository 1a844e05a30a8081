/**
 * The interactive session's slash commands (SPEC 1.3). Each one either changes what the next
 * prompt does (model, preset, plan mode, approvals, which conversation it continues) or shows
 * something (history, cost). Bad input is explained and changes nothing.
 */
import { budgetStandings, describeOnExceeded, describeStanding } from '../core/policy/budget-status';
import { storeLedger } from '../core/policy/store-ledger';
import { createLlmClient } from '../core/llm/create-llm-client';
import type { UsageTotals } from '../core/ports';
import type { AgentEvent, ContextBreakdown } from '../core/events/events';
import { describeContextParts, describeContextTotal, isMainCall } from '../core/events/cost-notes';
import { EnvSecretSource } from '../node/env-secret-source';
import type { CliContext } from './compose';
import { formatNumber } from './event-printer';
import { describeModel, parseModelChoice } from './model-choice';
import type { Output } from './output';
import { setupMessage } from './run-prompt';
import { queueCommand } from './queue-command';
import { forkCommand, forksCommand, messagesCommand, rewindCommand } from './fork-commands';
import { sessionsCommand } from './session-commands';
import { sideQuestionCommand } from './side-question-command';

export interface CommandContext {
  cli: CliContext;
  output: Output;
  env: NodeJS.ProcessEnv;
  storeDirectory: string;
  approveAll: { readonly on: boolean; set(on: boolean): void };
  /** Runs work that Ctrl+C may stop (compaction). */
  busy<T>(work: Promise<T>, stop: () => void): Promise<T>;
  /** Runs work without printing the events it replays (a reopened conversation's). */
  quiet<T>(work: () => Promise<T>): Promise<T>;
  /** Sends the queued messages (a held queue resumed) and waits for the agent, as a prompt does. */
  sendQueued(): Promise<void>;
  /** Asks the user a question on its own line; undefined when they pressed Ctrl+C or Ctrl+D. */
  ask(question: string): Promise<string | undefined>;
  /** Sends a prompt and waits for the agent, as typing it at the prompt does. */
  send(text: string): Promise<void>;
}

interface Command {
  name: string;
  usage: string;
  help: string;
  run(argument: string, context: CommandContext): Promise<'exit' | void>;
}

const HISTORY_LIMIT = 20;

export const COMMANDS: readonly Command[] = [
  {
    name: 'new',
    usage: '/new',
    help: 'start a new conversation',
    async run(_argument, { cli, output }) {
      cli.session.reset();
      output.line('New conversation.');
    },
  },
  {
    name: 'history',
    usage: '/history [words]',
    help: 'list saved conversations (matching the words)',
    async run(argument, { cli, output, storeDirectory }) {
      const conversations = await cli.session.library.list({ search: argument, limit: HISTORY_LIMIT });
      if (conversations.length === 0) {
        output.line(
          argument ? `No saved conversation matches "${argument}".` : `No saved conversations in ${storeDirectory}.`,
        );
        return;
      }
      for (const conversation of conversations) {
        const current = conversation.id === cli.session.currentId ? '*' : ' ';
        output.line(
          `${current} ${output.style.cyan(shortId(conversation.id))}  ${formatDate(conversation.updatedAt)}  ${conversation.title}`,
        );
      }
      output.line(output.style.dim('/resume ID continues one (the first characters of the id are enough).'));
    },
  },
  {
    name: 'resume',
    usage: '/resume ID',
    help: 'reopen a saved conversation; the next prompt continues it',
    async run(argument, { cli, output, storeDirectory, quiet }) {
      const wanted = argument.trim();
      if (!wanted) return output.error('Usage: /resume ID (/history lists the ids).');
      const matches = (await cli.session.library.list({ limit: 100_000 })).filter((conversation) =>
        conversation.id.startsWith(wanted),
      );
      const exact = matches.find((conversation) => conversation.id === wanted);
      if (matches.length === 0)
        return output.error(`No saved conversation "${wanted}" in ${storeDirectory}: /history lists them.`);
      if (!exact && matches.length > 1)
        return output.error(
          `"${wanted}" starts ${matches.length} conversation ids (${matches.map((c) => shortId(c.id)).join(', ')}): type more of it.`,
        );
      const chosen = exact ?? matches[0]!;
      if (!(await quiet(() => cli.session.open(chosen.id)))) return output.error(`Could not reopen ${chosen.id}.`);
      const events = cli.session.history;
      const prompts = events.filter((event) => event.type === 'user_message');
      output.line(
        `Resumed "${chosen.title}" (${formatDate(chosen.updatedAt)}, ${prompts.length} prompt${prompts.length === 1 ? '' : 's'}). Your next prompt continues it.`,
      );
      // Where it left off: the last prompt and the final answer to it (the text after its last tool call).
      const last = prompts.at(-1);
      if (!last) return;
      let after = '';
      for (const event of events) {
        if (event.seq <= last.seq || event.agentId !== 'lead') continue;
        if (event.type === 'tool_call' || event.type === 'tool_result') after = '';
        if (event.type === 'text_delta') after += event.text;
      }
      output.line(output.style.dim(`you: ${excerpt(last.text, 3)}`));
      if (after.trim()) output.line(output.style.dim(`agent: ${excerpt(after, 6)}`));
    },
  },
  {
    name: 'model',
    usage: '/model [provider/model | model]',
    help: 'show or set the model, e.g. /model ollama/qwen3 or /model gpt-4.1',
    async run(argument, { cli, output, env }) {
      if (!argument.trim()) return output.line(`Model: ${describeModel(cli.settings)}`);
      const choice = parseModelChoice(argument, cli.settings);
      if (!choice.ok) return output.error(choice.message);
      const provider = choice.settings.provider;
      const setup = createLlmClient(choice.settings, await new EnvSecretSource(env).getApiKey(provider));
      if (!setup.ok)
        return output.error(`${setupMessage(setup, provider)} The model stays ${describeModel(cli.settings)}.`);
      Object.assign(cli.settings, choice.settings);
      output.line(`Model: ${describeModel(cli.settings)} (from the next prompt on).`);
    },
  },
  {
    name: 'preset',
    usage: '/preset [name]',
    help: 'list the presets (system prompts) or choose one for new conversations',
    async run(argument, { cli, output }) {
      const { entries } = await cli.presets.catalog();
      const names = entries.map((entry) => entry.name);
      const wanted = argument.trim();
      if (!wanted) {
        // Custom agents say which file they come from and what they do.
        for (const { name, source, description } of entries)
          output.line(
            `${name === cli.settings.preset ? '*' : ' '} ${name}${source === 'bundled' ? '' : `  (${source})`}${description ? `  ${description}` : ''}`,
          );
        return;
      }
      if (!names.includes(wanted)) return output.error(`Unknown preset "${wanted}". Presets: ${names.join(', ')}.`);
      cli.settings.preset = wanted;
      output.line(
        cli.session.currentId
          ? `Preset "${wanted}" applies to new conversations: /new starts one.`
          : `Preset "${wanted}" is used from the next prompt on.`,
      );
    },
  },
  {
    name: 'plan',
    usage: '/plan [on|off]',
    help: 'switch plan mode: the agent reads and plans, and changes nothing until you approve',
    async run(argument, { cli, output }) {
      const word = argument.trim().toLowerCase();
      if (word && word !== 'on' && word !== 'off') return output.error('Usage: /plan, /plan on or /plan off.');
      const on = word ? word === 'on' : !cli.session.planModeActive;
      // A running conversation announces the switch itself (a plan_mode event); otherwise say it here.
      let announced = false;
      const stop = cli.session.onEvent((event) => {
        if (event.type === 'plan_mode') announced = true;
      });
      cli.session.setPlanMode(on);
      stop();
      if (!announced)
        output.line(
          on
            ? 'Plan mode on: the agent reads and plans, and changes nothing until you approve its plan.'
            : 'Plan mode off.',
        );
    },
  },
  {
    name: 'compact',
    usage: '/compact [focus]',
    help: 'summarise the conversation so far to free context (keeping the focus, if given)',
    async run(argument, { cli, output, busy }) {
      if (cli.session.isRunning || cli.session.history.length === 0 || !cli.session.currentId)
        return output.line('Nothing to compact yet: send a prompt first.');
      output.line(output.style.dim('Compacting…'));
      const compacted = await busy(cli.session.compact(argument.trim() || undefined), () => cli.session.stop());
      // A reopened conversation is loaded into the agent at its next prompt.
      if (!compacted) output.line('Nothing to compact yet: the conversation continues at the next prompt.');
    },
  },
  {
    name: 'cost',
    usage: '/cost',
    help: 'tokens and cost of this conversation and of today, and where each budget stands',
    async run(_argument, { cli, output, storeDirectory }) {
      await cli.session.flush();
      const store = await cli.store();
      const id = cli.session.currentId;
      const conversation = id && store ? await store.usageTotals({ conversationId: id }) : fromEvents(cli);
      output.line(`This conversation: ${describeUsage(conversation)}`);
      const context = lastContext(cli.session.history);
      if (context)
        output.line(`Context of the last request: ${describeContextTotal(context)} — ${describeContextParts(context)}`);
      if (store) {
        const day = new Date().toISOString().slice(0, 10);
        output.line(
          `Today (${day} UTC, every conversation in ${storeDirectory}): ${describeUsage(await store.usageTotals({ day }))}`,
        );
      }
      const budget = cli.budgetPolicy();
      const team = cli.teamStandings();
      const standings = await budgetStandings(
        budget,
        storeLedger(cli.store),
        id,
        Date.now(),
        team &&
          ((limits, conversationId) =>
            team(limits, conversationId).catch((error: unknown) => {
              output.line(
                `The team database did not answer (${error instanceof Error ? error.message : String(error)}).`,
              );
              return [];
            })),
      );
      if (standings.length === 0) {
        output.line('No budgets set (budget: in .openagent/agent.yaml or ~/.openagent/agent.yaml).');
        return;
      }
      output.line(`Budgets — ${describeOnExceeded(budget)}`);
      for (const standing of standings) output.line(`  ${describeStanding(standing)}`);
    },
  },
  queueCommand,
  sideQuestionCommand,
  messagesCommand,
  forkCommand,
  rewindCommand,
  forksCommand,
  sessionsCommand,
  {
    name: 'approve-all',
    usage: '/approve-all [off]',
    help: 'approve every tool call for the rest of the session (protected paths still ask)',
    async run(argument, { output, approveAll }) {
      const off = argument.trim().toLowerCase() === 'off';
      approveAll.set(!off);
      output.line(
        off
          ? 'Tool calls ask for approval again.'
          : 'Every tool call is approved for the rest of this session (protected paths still ask). /approve-all off undoes it.',
      );
    },
  },
  {
    name: 'help',
    usage: '/help',
    help: 'this list',
    async run(_argument, { output }) {
      for (const command of COMMANDS) output.line(`  ${command.usage.padEnd(34)} ${command.help}`);
      output.line(
        '  Ctrl+C stops the agent (then type feedback to redirect it); twice at the prompt, or Ctrl+D, quits.',
      );
    },
  },
  {
    name: 'exit',
    usage: '/exit',
    help: 'quit (also /quit)',
    async run() {
      return 'exit';
    },
  },
];

/** Runs `/name argument`; an unknown name is explained with the list of commands. */
export async function runSlashCommand(line: string, context: CommandContext): Promise<'exit' | void> {
  const [, name = '', argument = ''] = /^\/(\S*)\s*([\s\S]*)$/.exec(line.trim()) ?? [];
  const command =
    COMMANDS.find((candidate) => candidate.name === name.toLowerCase()) ??
    (name.toLowerCase() === 'quit' ? COMMANDS.find((candidate) => candidate.name === 'exit') : undefined);
  if (!command) {
    context.output.error(
      `Unknown command /${name}. Commands: ${COMMANDS.map((candidate) => `/${candidate.name}`).join(' ')}`,
    );
    return;
  }
  return command.run(argument.trim(), context);
}

/** The breakdown of the lead agent's last request, when a call reported one. */
function lastContext(events: readonly AgentEvent[]): ContextBreakdown | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    if (event.type === 'usage' && event.context && isMainCall(event)) return event.context;
  }
  return undefined;
}

/** Without a store: the usage events of the conversation on screen. */
function fromEvents(cli: CliContext): UsageTotals {
  const totals: UsageTotals = {
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0,
  };
  for (const event of cli.session.history) {
    if (event.type !== 'usage' || event.scope !== 'call') continue;
    totals.calls++;
    totals.inputTokens += event.usage.inputTokens;
    totals.outputTokens += event.usage.outputTokens;
    totals.cacheReadTokens += event.usage.cacheReadTokens;
    totals.cacheWriteTokens += event.usage.cacheWriteTokens;
    totals.costUsd += event.costUsd;
  }
  return totals;
}

function describeUsage(totals: UsageTotals): string {
  const tokens = totals.inputTokens + totals.outputTokens + totals.cacheReadTokens + totals.cacheWriteTokens;
  const cache =
    totals.cacheReadTokens || totals.cacheWriteTokens
      ? `, ${formatNumber(totals.cacheReadTokens)} cache read, ${formatNumber(totals.cacheWriteTokens)} cache write`
      : '';
  return (
    `${formatNumber(tokens)} tokens (${formatNumber(totals.inputTokens)} in, ${formatNumber(totals.outputTokens)} out${cache}), ` +
    `$${totals.costUsd.toFixed(4)}, ${totals.calls} model call${totals.calls === 1 ? '' : 's'}`
  );
}

/** The first `lines` lines of a text, marked when there is more. */
function excerpt(text: string, lines: number): string {
  const all = text.trim().split('\n');
  return all.length > lines ? `${all.slice(0, lines).join('\n')}\n…` : all.join('\n');
}

function shortId(id: string): string {
  return id.slice(0, 8);
}

function formatDate(time: number): string {
  const date = new Date(time);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
