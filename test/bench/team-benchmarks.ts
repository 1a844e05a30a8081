/**
 * Team control plane benchmarks (issue 18), on a throwaway PostgreSQL from the test harness:
 *
 * - what a team budget check adds to a model call: BudgetGuard.beforeCall with the team's
 *   limits (a reservation taken in the database through TeamPlane.budget → PgTeamStore.reserve)
 *   against the same check on this machine's limits only (the local ledger), p50/p99;
 * - audit throughput: 8 processes, each a member with its own embedded store, send audit records
 *   through the outbox into PostgreSQL at once (records/s), beside the rate at which the same
 *   processes write those records into their embedded stores.
 *
 * Skipped, and said so, where PostgreSQL is not installed.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { Pool } from 'pg';
import { redactValue } from '../../src/core/llm/redact';
import { BudgetGuard, type BudgetPolicy } from '../../src/core/policy/budget';
import { storeLedger } from '../../src/core/policy/store-ledger';
import { TeamPlane } from '../../src/core/team/team-plane';
import { SqlJsStore } from '../../src/store/sqljs-store';
import { initTeamSchema } from '../../src/team/migrations';
import { PgTeamStore } from '../../src/team/pg-team-store';
import { findPostgresBin, startPostgres, type PostgresServer } from '../harness/postgres';
import type { WorkerReport } from './team-audit-worker';

const WASM = path.resolve(__dirname, '..', '..', 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm');
const TSX = path.resolve(__dirname, '..', '..', 'node_modules', '.bin', 'tsx');
const WORKER = path.join(__dirname, 'team-audit-worker.ts');

export const BUDGET_CALLS = 500;
const WARMUPS = 50;
export const AUDIT_PROCESSES = 8;
export const AUDIT_RECORDS = 1_000;

export interface CheckLatency {
  check: string;
  calls: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
}

export interface AuditThroughput {
  path: string;
  processes: number;
  records: number;
  /** All processes together: records ÷ (last end − first start). */
  recordsPerSecond: number;
  /** One process on its own share of the time, averaged. */
  perProcessPerSecond: number;
}

export interface TeamBenchmarks {
  checks: CheckLatency[];
  audit: AuditThroughput[];
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

function latency(check: string, samples: number[]): CheckLatency {
  return {
    check,
    calls: samples.length,
    p50Ms: percentile(samples, 0.5),
    p99Ms: percentile(samples, 0.99),
    meanMs: samples.reduce((total, value) => total + value, 0) / samples.length,
  };
}

export async function measureTeam(): Promise<TeamBenchmarks | string> {
  if (!findPostgresBin()) return 'PostgreSQL is not installed (the "postgresql" package; .ci/run installs it)';
  const server = await startPostgres();
  try {
    const pool = new Pool({ connectionString: server.url, max: 1 });
    try {
      await initTeamSchema(pool);
    } finally {
      await pool.end();
    }
    const checks = await measureChecks(server);
    const audit = await measureAudit(server);
    return { checks, audit };
  } finally {
    await server.dispose();
  }
}

/** A call's estimate as the agent loop makes it: ~12k input tokens of claude-sonnet, 8,192 answer tokens held. */
const ESTIMATE = { usd: 0.036, tokens: 12_000 };
const ALLOWANCE = { usd: 0.12288, tokens: 8_192 };

async function measureChecks(server: PostgresServer): Promise<CheckLatency[]> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-bench-team-'));
  const { store } = await SqlJsStore.open({ directory, wasmPath: WASM, redact: redactValue });
  const ledger = storeLedger(() => Promise.resolve(store));
  const emit = () => undefined;
  const timed = async (guard: BudgetGuard, conversationId: string, after?: (reservation: string) => Promise<void>) => {
    const samples: number[] = [];
    for (let index = 0; index < WARMUPS + BUDGET_CALLS; index++) {
      const started = performance.now();
      const reservation = await guard.beforeCall(conversationId, ESTIMATE, emit, ALLOWANCE);
      const elapsed = performance.now() - started;
      if (index >= WARMUPS) samples.push(elapsed);
      if (reservation && after) await after(reservation);
    }
    return samples;
  };

  // Without a team: this machine's limits, counted from the store's usage records.
  const localPolicy: BudgetPolicy = { per_conversation_usd: 1_000, daily_usd: 10_000, monthly_usd: 100_000 };
  const local = new BudgetGuard({ policy: () => localPolicy, ledger, now: () => Date.now() });
  const localSamples = await timed(local, randomUUID());

  // With a team: the team's, the member's and the conversation's limits, reserved in PostgreSQL.
  const member = 'bench_member';
  const teamStore = new PgTeamStore(await server.createMember(member));
  const plane = new TeamPlane({
    store: teamStore,
    identity: { member: `${member}@example.com` },
    cache: { read: () => Promise.resolve(undefined), write: () => Promise.resolve() },
    outbox: () => Promise.resolve(undefined),
    now: () => Date.now(),
    newId: randomUUID,
    onPolicyMistakes: () => undefined,
  });
  const teamPolicy: BudgetPolicy = {
    ...localPolicy,
    team_daily_usd: 1_000_000,
    team_monthly_usd: 10_000_000,
    member_daily_usd: 100_000,
  };
  const team = new BudgetGuard({ policy: () => teamPolicy, ledger, shared: () => plane.budget, now: () => Date.now() });
  const conversationId = randomUUID();
  // Each reservation is settled by its usage record (not timed), as the outbox does after the call.
  const settle = async (reservationId: string) => {
    await teamStore.append({
      audit: [],
      usage: [
        {
          id: randomUUID(),
          member: `${member}@example.com`,
          conversationId,
          provider: 'anthropic',
          model: 'claude-sonnet-4-6',
          inputTokens: 12_000,
          outputTokens: 800,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          costUsd: 0.048,
          time: Date.now(),
          reservationId,
        },
      ],
    });
  };
  const teamSamples = await timed(team, conversationId, settle);
  await plane.dispose();
  await store.close();
  return [
    latency('local limits only (ledger)', localSamples),
    latency('team limits (reserve in PostgreSQL)', teamSamples),
  ];
}

interface Worker {
  reports: WorkerReport[];
  next(): Promise<WorkerReport>;
  go(): void;
  exited: Promise<number>;
}

function startWorker(url: string, member: string): Worker {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-bench-audit-'));
  const child = spawn(TSX, [WORKER, url, member, directory, String(AUDIT_RECORDS)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const reports: WorkerReport[] = [];
  const waiting: Array<(report: WorkerReport) => void> = [];
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    const report = JSON.parse(line) as WorkerReport;
    const resolve = waiting.shift();
    if (resolve) resolve(report);
    else reports.push(report);
  });
  return {
    reports,
    next: () => {
      const ready = reports.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    go: () => child.stdin!.write('go\n'),
    exited: new Promise((resolve) => child.on('close', (code) => resolve(code ?? -1))),
  };
}

function throughput(label: string, reports: WorkerReport[]): AuditThroughput {
  const records = reports.length * AUDIT_RECORDS;
  const span = Math.max(...reports.map((report) => report.end)) - Math.min(...reports.map((report) => report.start));
  const perProcess =
    reports.reduce((total, report) => total + AUDIT_RECORDS / ((report.end - report.start) / 1000), 0) / reports.length;
  return {
    path: label,
    processes: reports.length,
    records,
    recordsPerSecond: records / (span / 1000),
    perProcessPerSecond: perProcess,
  };
}

async function measureAudit(server: PostgresServer): Promise<AuditThroughput[]> {
  const workers: Worker[] = [];
  for (let index = 0; index < AUDIT_PROCESSES; index++) {
    const name = `bench_auditor_${index}`;
    workers.push(startWorker(await server.createMember(name), `${name}@example.com`));
  }
  const written = await Promise.all(workers.map((worker) => worker.next()));
  for (const worker of workers) worker.go();
  const sent = await Promise.all(workers.map((worker) => worker.next()));
  const codes = await Promise.all(workers.map((worker) => worker.exited));
  const [rows] = await server.query('SELECT count(*) AS n FROM audit');
  const expected = AUDIT_PROCESSES * AUDIT_RECORDS;
  if (codes.some((code) => code !== 0) || Number(rows!.n) !== expected || sent.some((report) => report.left))
    throw new Error(`the audit benchmark lost records: ${String(rows!.n)} of ${expected} in the database`);
  return [
    throughput('embedded store (SqlJsStore.recordAudit, into the outbox)', written),
    throughput('outbox → PostgreSQL (TeamPlane drain, batches of 200)', sent),
  ];
}
