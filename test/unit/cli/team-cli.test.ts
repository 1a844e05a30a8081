import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TeamAudit } from '../../../src/core/team/team-store';
import { PgTeamStore } from '../../../src/team/pg-team-store';
import { TEST_TIMEOUT_MS } from '../../harness/patience';
import { requirePostgres, startPostgres, type PostgresServer } from '../../harness/postgres';
import { runCli, tempFolder } from './cli-helpers';

/** Parses RFC 4180 CSV (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quoted && char === '"' && text[index + 1] === '"') {
      field += '"';
      index++;
    } else if (quoted && char === '"') {
      quoted = false;
    } else if (quoted) {
      field += char;
    } else if (char === '"') {
      quoted = true;
    } else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\r' && text[index + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      index++;
    } else {
      field += char;
    }
  }
  return rows;
}

describe('openagent team (CLI) on a real PostgreSQL', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: PostgresServer;
  let cwd: string;
  const team = (args: string[], env: Record<string, string> = {}) =>
    runCli(['team', ...args], {
      cwd,
      env: { OPENAGENT_TEAM_DATABASE_URL: server.url, OPENAGENT_TEAM_MEMBER: 'lead@example.com', ...env },
    });

  before(async function () {
    requirePostgres(this);
    server = await startPostgres();
    cwd = tempFolder('team');
  });
  after(async () => {
    await server?.dispose();
  });

  it('says in one line when there is no URL or the database is unreachable, without the password', async () => {
    const missing = await team(['status'], { OPENAGENT_TEAM_DATABASE_URL: '' });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^openagent team: no team database: set OPENAGENT_TEAM_DATABASE_URL/);
    const away = await team(['usage'], {
      OPENAGENT_TEAM_DATABASE_URL: 'postgres://lead:hunter2-secret@127.0.0.1:1/team',
    });
    assert.equal(away.code, 1);
    assert.equal(away.stderr.trim().split('\n').length, 1, away.stderr);
    assert.match(away.stderr, /lead@127\.0\.0\.1:1\/team is unreachable: .*ECONNREFUSED/);
    assert.doesNotMatch(away.stderr + away.stdout, /hunter2/);
  });

  it('initialises the schema (twice), reports status, and sets and gets the policy', async () => {
    const first = await team(['init']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /applied migration 1: /);
    assert.match(first.stdout, /applied migration 2: member directory and approval requests/);
    assert.match(first.stdout, /member role: openagent_member \(created\)/);
    assert.match(first.stdout, /CREATE ROLE alice LOGIN PASSWORD '…' IN ROLE openagent_member;/);
    const again = await team(['init']);
    assert.match(again.stdout, /schema already at version 2: nothing to migrate/);

    const before = await team(['status']);
    assert.equal(before.code, 0, before.stderr);
    assert.match(before.stdout, /reachable: yes \(openagent_admin@127\.0\.0\.1:\d+\/openagent_team\)/);
    assert.match(before.stdout, /schema: version 2/);
    assert.match(before.stdout, /policy: none set/);
    assert.doesNotMatch(before.stdout, new RegExp(server.adminPassword));

    const bad = path.join(cwd, 'bad.yaml');
    fs.writeFileSync(bad, 'budget:\n  team_daily_usd: -5\ntools:\n  denny: [bash]\n');
    const refused = await team(['policy', 'set', bad]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /bad\.yaml:2:19: budget\.team_daily_usd: /);
    assert.match(refused.stderr, /bad\.yaml:4:3: tools\.denny: /);
    assert.match(refused.stderr, /the team policy was not changed/);

    const good = path.join(cwd, 'agent.yaml');
    fs.writeFileSync(good, 'tools:\n  deny: [bash]\nbudget:\n  team_monthly_usd: 500\n');
    const stored = await team(['policy', 'set', good]);
    assert.equal(stored.code, 0, stored.stderr);
    assert.match(stored.stdout, /team policy version 1 stored \(by lead@example\.com\)/);
    const got = await team(['policy', 'get']);
    assert.equal(got.stdout, fs.readFileSync(good, 'utf8'));
    const history = await team(['policy', 'get', '--history']);
    assert.match(history.stdout, /VERSION\s+CHANGED BY\s+CHANGED AT\n\s*1\s+lead@example\.com\s+\d{4}-/);
    const after = await team(['status']);
    assert.match(after.stdout, /policy: version 1, set by lead@example\.com at /);

    // A member may read the policy but not set it: the database says no.
    const memberUrl = await server.createMember('carol');
    const denied = await team(['policy', 'set', good], { OPENAGENT_TEAM_DATABASE_URL: memberUrl });
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /^openagent team: permission refused: .*permission denied for table team_policy/);
    const read = await team(['policy', 'get'], { OPENAGENT_TEAM_DATABASE_URL: memberUrl });
    assert.equal(read.stdout, fs.readFileSync(good, 'utf8'));
  });

  it('shows usage per member and exports the audit trail as JSON lines and CSV', async () => {
    const memberUrl = await server.createMember('dave');
    const store = new PgTeamStore(memberUrl);
    const base = Date.UTC(2037, 3, 2, 9);
    const tricky = { command: 'echo "a, b"\nnext line', quote: '"' };
    const records: TeamAudit[] = Array.from({ length: 1203 }, (_, index) => ({
      id: `audit-${String(index).padStart(5, '0')}`,
      member: 'dave@example.com',
      repository: 'github.com/acme/app',
      conversationId: 'c-1',
      time: base + index,
      kind: 'tool_call',
      data: index === 7 ? tricky : { index },
    }));
    try {
      await store.append({
        audit: records,
        usage: [
          {
            id: 'u1',
            member: 'dave@example.com',
            conversationId: 'c-1',
            provider: 'anthropic',
            model: 'm',
            inputTokens: 1000,
            outputTokens: 200,
            cacheReadTokens: 0,
            cacheWriteTokens: 0,
            costUsd: 1.5,
            time: base,
          },
          {
            id: 'u2',
            member: 'erin@example.com',
            conversationId: 'c-2',
            provider: 'openai',
            model: 'm',
            inputTokens: 10,
            outputTokens: 5,
            cacheReadTokens: 0,
            cacheWriteTokens: 0,
            costUsd: 0.25,
            time: base,
          },
        ],
      });
    } finally {
      await store.close();
    }

    const usage = await team(['usage', '--month', '2037-04']);
    assert.equal(usage.code, 0, usage.stderr);
    assert.match(usage.stdout, /MEMBER\s+CALLS\s+INPUT\s+OUTPUT\s+TOKENS\s+USD/);
    assert.match(usage.stdout, /dave@example\.com\s+1\s+1000\s+200\s+1200\s+\$1\.50/);
    assert.match(usage.stdout, /erin@example\.com\s+1\s+10\s+5\s+15\s+\$0\.25/);
    assert.match(usage.stdout, /total\s+2\s+1010\s+205\s+1215\s+\$1\.75/);
    const one = await team(['usage', '--month', '2037-04', '--member', 'erin@example.com']);
    assert.doesNotMatch(one.stdout, /dave/);
    assert.match((await team(['usage', '--month', '2037-05'])).stdout, /No usage in 2037-05/);

    // More records than one page: all of them, in order, once.
    const jsonl = await team(['audit', 'export', '--since', '2037-04-02']);
    assert.equal(jsonl.code, 0, jsonl.stderr);
    const lines = jsonl.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; data: unknown });
    assert.deepEqual(
      lines.map((line) => line.id),
      records.map((record) => record.id),
    );
    assert.deepEqual(lines[7]!.data, tricky);

    const file = path.join(cwd, 'audit.csv');
    const since = new Date(base + 5).toISOString();
    const csv = await team(['audit', 'export', '--since', since, '--format', 'csv', '--output', file]);
    assert.equal(csv.code, 0, csv.stderr);
    assert.match(csv.stdout, /1198 audit records written to .*audit\.csv/);
    const rows = parseCsv(fs.readFileSync(file, 'utf8'));
    assert.deepEqual(rows[0], ['id', 'time', 'member', 'repository', 'conversation_id', 'kind', 'data']);
    assert.equal(rows.length, 1 + 1198);
    // jsonb keeps keys in its own order: compare the data as data.
    assert.deepEqual(rows[3]!.slice(0, 6), [
      'audit-00007',
      new Date(base + 7).toISOString(),
      'dave@example.com',
      'github.com/acme/app',
      'c-1',
      'tool_call',
    ]);
    assert.deepEqual(JSON.parse(rows[3]![6]!), tricky);

    const wrong = await team(['audit', 'export', '--since', 'yesterday']);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /--since needs a day/);
  });
});
