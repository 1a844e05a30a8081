/** Prints the team control plane's benchmarks (team-benchmarks.ts); `tsx test/bench/team-report.ts` runs them alone. */
import { table } from './bench-table';
import { AUDIT_RECORDS, BUDGET_CALLS, measureTeam } from './team-benchmarks';

export async function printTeamBenchmarks(): Promise<void> {
  console.log(
    `\nTeam budget check before a model call: BudgetGuard.beforeCall with the team's limits (a reservation in a local PostgreSQL, settled after each call) versus this machine's limits only (${BUDGET_CALLS} calls each after warm-ups)\n`,
  );
  const team = await measureTeam();
  if (typeof team === 'string') {
    console.log(`(skipped: ${team})`);
    return;
  }
  const [local, shared] = team.checks;
  console.log(
    table(
      ['check', 'calls', 'p50 (ms)', 'p99 (ms)', 'mean (ms)'],
      [
        ...team.checks.map((row) => [
          row.check,
          String(row.calls),
          row.p50Ms.toFixed(3),
          row.p99Ms.toFixed(3),
          row.meanMs.toFixed(3),
        ]),
        [
          'added by the team check',
          '',
          (shared!.p50Ms - local!.p50Ms).toFixed(3),
          (shared!.p99Ms - local!.p99Ms).toFixed(3),
          (shared!.meanMs - local!.meanMs).toFixed(3),
        ],
      ],
    ),
  );
  const embedded = team.audit[0]!;
  console.log(
    `\nAudit throughput: ${embedded.processes} processes (members), each writing ${AUDIT_RECORDS.toLocaleString('en-US')} tool-call audit records into its own embedded store, then all sending their outboxes into PostgreSQL at once\n`,
  );
  console.log(
    table(
      ['path', 'processes', 'records', 'records/s (all)', 'records/s per process', 'ratio to embedded'],
      team.audit.map((row) => [
        row.path,
        String(row.processes),
        row.records.toLocaleString('en-US'),
        row.recordsPerSecond.toFixed(0),
        row.perProcessPerSecond.toFixed(0),
        (row.recordsPerSecond / embedded.recordsPerSecond).toFixed(2),
      ]),
    ),
  );
}

if (require.main === module)
  printTeamBenchmarks().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
