/**
 * `openagent team …`: the team lead's commands on the team database (issue 18). The URL comes
 * from OPENAGENT_TEAM_DATABASE_URL, the member's identity from OPENAGENT_TEAM_MEMBER or git's
 * user.email. Every failure is one line on stderr: no URL, the database unreachable (never
 * with its password), or a permission the login lacks.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { parseAgentPolicy } from '../core/policy/agent-policy';
import { TeamUnreachableError } from '../core/team/team-store';
import { createTeamPool, describeTarget, secretsOf, TeamPermissionError, toTeamError } from '../team/connection';
import { addMemberSql, DEFAULT_MEMBER_ROLE, initTeamSchema } from '../team/migrations';
import { PgTeamStore, utcMonth } from '../team/pg-team-store';
import { APPROVALS_USAGE, runTeamApprovalsCommand, unknownApproverWarning } from './team-approvals-command';
import { AUDIT_CSV_HEADER, auditCsvLine, auditJsonLine, csvLine, parseSince, table, usageTable } from './team-format';

export const TEAM_USAGE = `Usage: openagent team <command>

  init [--member-role NAME]      create or migrate the team schema and the members' grants
  status                         reachable?, schema version, policy version, members this month
  policy get [--history]         the team policy (newest), or its versions
  policy set FILE                check FILE (an agent.yaml) and store it as the new version
  usage [--member EMAIL] [--month YYYY-MM]
                                 calls, tokens and USD per member (default: this month)
  audit export --since DATE|ISO [--format jsonl|csv] [--output FILE]
                                 the audit trail from DATE on (default jsonl on stdout)
${APPROVALS_USAGE}

The database: OPENAGENT_TEAM_DATABASE_URL (postgres://user:password@host:5432/db; add
?sslmode=verify-full for TLS). You: OPENAGENT_TEAM_MEMBER, else git config user.email.`;

export interface TeamStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Runs `openagent team <argv>`; resolves with the exit code. */
export async function runTeamCommand(argv: string[], env: NodeJS.ProcessEnv, streams: TeamStreams): Promise<number> {
  const { stdout, stderr } = streams;
  const fail = (message: string, code = 1) => {
    stderr.write(`openagent team: ${message}\n`);
    return code;
  };
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    stdout.write(`${TEAM_USAGE}\n`);
    return command ? 0 : 2;
  }
  const teamUrl = env.OPENAGENT_TEAM_DATABASE_URL?.trim();
  if ((command === 'approvals' || command === 'members') && teamUrl)
    return runTeamApprovalsCommand(command, rest, teamUrl, streams).catch((error: unknown) => {
      const known = toTeamError(error, describeTarget(teamUrl), secretsOf(teamUrl));
      return fail(
        `${known instanceof TeamPermissionError ? 'permission refused: ' : ''}${known.message.split('\n')[0]!}`,
      );
    });
  let parsed: ReturnType<typeof parseTeamArgs>;
  try {
    parsed = parseTeamArgs(rest);
  } catch (error) {
    return fail(`${error instanceof Error ? error.message : String(error)}\n\n${TEAM_USAGE}`, 2);
  }
  const url = env.OPENAGENT_TEAM_DATABASE_URL?.trim();
  if (!url)
    return fail('no team database: set OPENAGENT_TEAM_DATABASE_URL (postgres://user:password@host:5432/database).', 2);
  const context: TeamContext = { url, env, stdout, stderr, values: parsed.values, positionals: parsed.positionals };
  try {
    switch (command) {
      case 'init':
        return await init(context);
      case 'status':
        return await status(context);
      case 'policy':
        return await policy(context);
      case 'usage':
        return await usage(context);
      case 'audit':
        return await auditExport(context);
      default:
        return fail(`unknown command "${command}".\n\n${TEAM_USAGE}`, 2);
    }
  } catch (error) {
    const known = toTeamError(error, describeTarget(url), secretsOf(url));
    if (known instanceof TeamPermissionError) return fail(`permission refused: ${known.message}`);
    return fail(known.message.split('\n')[0]!);
  }
}

interface TeamContext {
  url: string;
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  values: ReturnType<typeof parseTeamArgs>['values'];
  positionals: string[];
}

function parseTeamArgs(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      'member-role': { type: 'string' },
      history: { type: 'boolean' },
      member: { type: 'string' },
      month: { type: 'string' },
      since: { type: 'string' },
      format: { type: 'string' },
      output: { type: 'string' },
    },
  });
}

async function withStore<T>(context: TeamContext, work: (store: PgTeamStore) => Promise<T>): Promise<T> {
  const store = new PgTeamStore(context.url, { max: 1 });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

async function init(context: TeamContext): Promise<number> {
  const memberRole = context.values['member-role'] ?? DEFAULT_MEMBER_ROLE;
  const pool = createTeamPool(context.url, { max: 1 });
  try {
    const report = await initTeamSchema(pool, { memberRole, target: describeTarget(context.url) });
    const out = context.stdout;
    out.write(`Team database ${describeTarget(context.url)}, schema "${report.schema}":\n`);
    if (report.applied.length === 0) out.write(`  schema already at version ${report.toVersion}: nothing to migrate\n`);
    for (const migration of report.applied) out.write(`  applied migration ${migration}\n`);
    out.write(`  member role: ${report.memberRole}${report.roleCreated ? ' (created)' : ''}; grants applied\n`);
    out.write(`\nTo add a member, run as the admin:\n  ${addMemberSql(report.memberRole)}\n`);
    return 0;
  } finally {
    await pool.end();
  }
}

async function status(context: TeamContext): Promise<number> {
  const out = context.stdout;
  return withStore(context, async (store) => {
    let version: number;
    try {
      version = await store.schemaVersion();
    } catch (error) {
      if (!(error instanceof TeamUnreachableError)) throw error;
      out.write(`reachable: no — ${error.message}\n`);
      return 1;
    }
    out.write(`reachable: yes (${store.target})\n`);
    if (version === 0) {
      out.write('schema: none — run `openagent team init` as the admin\n');
      return 1;
    }
    out.write(`schema: version ${version}\n`);
    const newest = await store.policy();
    out.write(
      newest
        ? `policy: version ${newest.version}, set by ${newest.changedBy} at ${new Date(newest.changedAt).toISOString()}\n`
        : 'policy: none set (openagent team policy set FILE)\n',
    );
    const monthStart = Date.parse(`${utcMonth(Date.now())}-01T00:00:00Z`);
    out.write(`members seen this month: ${await store.membersSeen(monthStart)}\n`);
    return 0;
  });
}

async function policy(context: TeamContext): Promise<number> {
  const [action, file, ...extra] = context.positionals;
  if (action === 'get' && !file) {
    return withStore(context, async (store) => {
      if (context.values.history) {
        const versions = await store.policyHistory(100);
        context.stdout.write(
          `${table(
            ['VERSION', 'CHANGED BY', 'CHANGED AT'],
            versions.map((each) => [String(each.version), each.changedBy, new Date(each.changedAt).toISOString()]),
            [true, false, false],
          )}\n`,
        );
        return 0;
      }
      const newest = await store.policy();
      if (!newest) {
        context.stderr.write('openagent team: no team policy was ever set.\n');
        return 1;
      }
      context.stdout.write(newest.text.endsWith('\n') ? newest.text : `${newest.text}\n`);
      return 0;
    });
  }
  if (action === 'set' && file && extra.length === 0) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      context.stderr.write(`openagent team: cannot read ${file}: ${(error as Error).message}\n`);
      return 1;
    }
    const { policy: parsedPolicy, problems } = parseAgentPolicy(text);
    if (problems.length) {
      for (const problem of problems)
        context.stderr.write(`${file}:${problem.line + 1}:${problem.column + 1}: ${problem.message}\n`);
      context.stderr.write(`openagent team: ${file} has problems; the team policy was not changed.\n`);
      return 1;
    }
    const member = memberIdentity(context.env);
    if (!member) {
      context.stderr.write('openagent team: who are you? Set OPENAGENT_TEAM_MEMBER or git config user.email.\n');
      return 2;
    }
    return withStore(context, async (store) => {
      const unknown = parsedPolicy && (await unknownApproverWarning(context.url, parsedPolicy));
      if (unknown) context.stderr.write(`openagent team: warning: ${unknown}\n`);
      const stored = await store.setPolicy(text, member);
      context.stdout.write(`team policy version ${stored.version} stored (by ${stored.changedBy}).\n`);
      return 0;
    });
  }
  context.stderr.write(`openagent team: policy get [--history] | policy set FILE\n`);
  return 2;
}

async function usage(context: TeamContext): Promise<number> {
  const month = context.values.month ?? utcMonth(Date.now());
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) {
    context.stderr.write(`openagent team: --month is YYYY-MM, not "${month}".\n`);
    return 2;
  }
  return withStore(context, async (store) => {
    const rows = await store.usage({ month, member: context.values.member });
    if (rows.length === 0) {
      context.stdout.write(`No usage in ${month}${context.values.member ? ` for ${context.values.member}` : ''}.\n`);
      return 0;
    }
    context.stdout.write(`Usage in ${month} (UTC):\n${usageTable(rows)}\n`);
    return 0;
  });
}

const EXPORT_PAGE = 500;

async function auditExport(context: TeamContext): Promise<number> {
  const { values, positionals, stderr } = context;
  if (positionals[0] !== 'export' || positionals.length !== 1) {
    stderr.write('openagent team: audit export --since DATE|ISO [--format jsonl|csv] [--output FILE]\n');
    return 2;
  }
  const since = values.since === undefined ? undefined : parseSince(values.since);
  if (since === undefined) {
    stderr.write('openagent team: --since needs a day (YYYY-MM-DD) or an ISO time.\n');
    return 2;
  }
  const format = values.format ?? 'jsonl';
  if (format !== 'jsonl' && format !== 'csv') {
    stderr.write(`openagent team: --format is jsonl or csv, not "${format}".\n`);
    return 2;
  }
  return withStore(context, async (store) => {
    // The first page is read before the file is created: an unreachable database leaves no empty file.
    let page = await store.audit({ since, limit: EXPORT_PAGE });
    const output = values.output ? fs.createWriteStream(values.output) : context.stdout;
    let count = 0;
    try {
      if (format === 'csv') await write(output, csvLine(AUDIT_CSV_HEADER));
      while (page.length > 0) {
        for (const record of page)
          await write(output, format === 'csv' ? auditCsvLine(record) : `${auditJsonLine(record)}\n`);
        count += page.length;
        const last = page.at(-1)!;
        page = page.length < EXPORT_PAGE ? [] : await store.audit({ since, limit: EXPORT_PAGE, after: last });
      }
    } finally {
      if (output !== context.stdout) await new Promise((resolve) => (output as fs.WriteStream).end(resolve));
    }
    if (values.output) context.stdout.write(`${count} audit records written to ${values.output}.\n`);
    return 0;
  });
}

/** Writes, waiting for the stream to drain when it asks (a large export through a slow pipe). */
function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    stream.once('error', onError);
    const done = () => {
      stream.off('error', onError);
      resolve();
    };
    if (stream.write(text)) done();
    else stream.once('drain', done);
  });
}

/** Who is working: OPENAGENT_TEAM_MEMBER, else git's user.email. */
export function memberIdentity(env: NodeJS.ProcessEnv): string | undefined {
  const configured = env.OPENAGENT_TEAM_MEMBER?.trim();
  if (configured) return configured;
  try {
    const email = execFileSync('git', ['config', 'user.email'], { env, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
    return email || undefined;
  } catch {
    return undefined;
  }
}
