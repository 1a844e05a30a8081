/**
 * A fleet of CLI processes working as different team members against one team database (the
 * race and fault tests): a scripted model that thinks a given number of times and reports usage
 * like a hosted API, one store, workspace and home per member, and the figures to compare — what
 * each member's embedded store recorded against what the team database holds.
 */
import * as path from 'node:path';
import { redactValue } from '../../../src/core/llm/redact';
import { SqlJsStore } from '../../../src/store/sqljs-store';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { PATIENCE_MS } from '../../harness/patience';
import type { PostgresServer } from '../../harness/postgres';
import { runCli, startCli, tempFolder, type Ran, type RunningCli } from '../cli/cli-helpers';

const WASM = path.resolve(__dirname, '..', '..', '..', 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm');

/** A model with a price (USD 2.50 / 1M input, 10 / 1M output), served by the fake as an OpenAI-compatible API. */
export const PRICED_MODEL = 'gpt-4o';
/** Output tokens the scripted model reports per answer. */
export const ANSWER_TOKENS = 400;
/** The answer allowance a reservation holds (--max-output-tokens; below the 8192 default). */
export const MAX_OUTPUT_TOKENS = 1024;

export interface FleetModel {
  server: FakeModelServer;
  /** Lets a member's open-ended run ("think until stopped") finish at its next call. */
  release(member: Member): void;
  /** Model calls the member's runs made (at or after `since`, epoch ms). */
  callsOf(member: Member, since?: number): number;
}

/**
 * The scripted model: a prompt "think N times" gets N think calls, one per request, then a short
 * answer; "think until stopped" thinks until the test releases the member. Every answer reports
 * usage as a hosted API does: the request's size in tokens (about four characters each) and
 * ANSWER_TOKENS of output.
 */
export async function startFleetModel(): Promise<FleetModel> {
  const released = new Set<string>();
  const holder: { server?: FakeModelServer } = {};
  const server = await FakeModelServer.start({
    respond: (conversation) => {
      // The request being answered is the last one recorded (nothing runs in between).
      const body = holder.server?.requests.at(-1)?.body;
      const input = Math.ceil(JSON.stringify(body ?? {}).length / 4);
      const prompt = conversation.entries.find((entry) => entry.kind === 'prompt')?.text ?? '';
      const done = conversation.entries.filter((entry) => entry.kind === 'tool_result').length;
      const member = /\[(\w+)\]/.exec(prompt)?.[1] ?? '';
      const wanted = /think until stopped/.test(prompt)
        ? released.has(member)
          ? done
          : Infinity
        : Number(/think (\d+) times/.exec(prompt)?.[1] ?? 0);
      const usage = { input, output: ANSWER_TOKENS };
      if (done >= wanted) return { text: `Thought ${done} times.`, usage };
      return {
        toolCalls: [{ id: `think-${done + 1}`, name: 'think', arguments: { thought: `step ${done + 1}` } }],
        usage,
        // Not a hammering loop: a little time per streamed piece, like a model.
        delayMs: 20,
      };
    },
  });
  holder.server = server;
  return {
    server,
    release: (member) => released.add(member.name),
    callsOf: (member, since = 0) =>
      server.modelCalls.filter(
        (request) => request.time >= since && JSON.stringify(request.body).includes(`[${member.name}]`),
      ).length,
  };
}

export interface Member {
  name: string;
  /** OPENAGENT_TEAM_MEMBER. */
  email: string;
  /** Its own login. */
  url: string;
  store: string;
  workspace: string;
  home: string;
}

/** Members with their own database login, store, workspace and home. */
export async function createMembers(server: PostgresServer, prefix: string, count: number): Promise<Member[]> {
  const members: Member[] = [];
  for (let index = 0; index < count; index++) {
    const name = `${prefix}_${index}`;
    members.push({
      name,
      email: `${name}@example.com`,
      url: await server.createMember(name),
      store: tempFolder(`${name}-store`),
      workspace: tempFolder(`${name}-ws`),
      home: tempFolder(`${name}-home`),
    });
  }
  return members;
}

function memberRun(member: Member, model: FleetModel, what: string) {
  const args = [
    '--store',
    member.store,
    '--provider',
    'openai-compatible',
    '--base-url',
    model.server.openAiBaseUrl,
    '--model',
    PRICED_MODEL,
    '--max-output-tokens',
    String(MAX_OUTPUT_TOKENS),
    // Open-ended runs go on until released, however many calls that takes.
    '--max-turns',
    '1000',
    // The member's name in the prompt tells the scripted model whose run it is.
    `${what} [${member.name}]`,
  ];
  const options = {
    // Eight CLIs at once on a loaded machine start and finish slowly: room for that, not for a hang.
    timeoutMs: 2 * PATIENCE_MS,
    cwd: member.workspace,
    home: member.home,
    env: { OPENAGENT_TEAM_DATABASE_URL: member.url, OPENAGENT_TEAM_MEMBER: member.email },
  };
  return { args, options };
}

/** One non-interactive CLI run of the member: `openagent … "think N times [member]"`. */
export function runMember(member: Member, model: FleetModel, what: string): Promise<Ran> {
  const { args, options } = memberRun(member, model, what);
  return runCli(args, options);
}

export function startMember(member: Member, model: FleetModel, what: string): RunningCli {
  const { args, options } = memberRun(member, model, what);
  return startCli(args, options);
}

/** The CLI's message when the team's budget stopped a call. */
export const TEAM_BUDGET_BLOCK =
  /error: Stopped: (the next model call \(about \$[\d.]+\) would pass )?the team's daily budget/;
/** The CLI's message when the team database could not be asked and the policy says block. */
export const UNREACHABLE_BLOCK =
  /Stopped: the team database could not be asked about the team's budgets \(.*\), and the policy says budget\.on_unreachable: block/;

export interface StoreFigures {
  calls: number;
  costUsd: number;
  /** Usage record ids (each model call's usage is named like its model_call audit record). */
  usageIds: string[];
  auditIds: string[];
  /** Every usage and audit record, with its time (epoch ms). */
  records: Array<{ id: string; time: number }>;
  /** Records still waiting for the team database. */
  outbox: number;
}

/** What a member's embedded store recorded (opened as the product opens it). */
export async function storeFigures(directory: string): Promise<StoreFigures> {
  const { store } = await SqlJsStore.open({ directory, wasmPath: WASM, redact: redactValue });
  try {
    const totals = await store.usageTotals();
    const audit = await store.listAudit();
    const outbox = await store.teamOutbox(1_000_000);
    const usage = audit
      .filter((record) => record.kind === 'model_call')
      .map((record) => ({ id: record.id.replace(/-audit-(\d+)$/, '-usage-$1'), time: record.time }));
    return {
      calls: totals.calls,
      costUsd: totals.costUsd,
      usageIds: usage.map((record) => record.id),
      auditIds: audit.map((record) => record.id),
      records: [...usage, ...audit.map((record) => ({ id: record.id, time: record.time }))],
      outbox: outbox.length,
    };
  } finally {
    await store.close();
  }
}

export interface DatabaseFigures {
  usageIds: string[];
  auditIds: string[];
  costUsd: number;
  /** Rows per id above one (the primary keys make this 0; counted anyway). */
  duplicates: number;
}

/** What the team database holds (as its admin). */
export async function databaseFigures(server: PostgresServer): Promise<DatabaseFigures> {
  const usage = await server.query('SELECT id FROM usage');
  const audit = await server.query('SELECT id FROM audit');
  const [cost] = await server.query('SELECT coalesce(sum(cost_usd), 0)::text AS usd FROM usage');
  const [dupes] = await server.query(
    `SELECT (SELECT count(*) - count(DISTINCT id) FROM usage) + (SELECT count(*) - count(DISTINCT id) FROM audit) AS n`,
  );
  return {
    usageIds: usage.map((row) => String(row.id)),
    auditIds: audit.map((row) => String(row.id)),
    costUsd: Number(cost!.usd),
    duplicates: Number(dupes!.n),
  };
}

/** Ids in `expected` missing from `actual`, and ids in `actual` not in `expected`. */
export function compareIds(expected: string[], actual: string[]): { lost: string[]; extra: string[] } {
  const have = new Set(actual);
  const want = new Set(expected);
  return {
    lost: expected.filter((id) => !have.has(id)),
    extra: actual.filter((id) => !want.has(id)),
  };
}

export function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
