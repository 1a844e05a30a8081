/**
 * Creates and migrates the team schema, then (re)applies the members' grants. Safe to run any
 * number of times, and by two admins at once (an advisory lock serialises them); each
 * migration runs in its own transaction with its version row, so a failure leaves the schema
 * at the last complete version.
 */
import type { Pool, PoolClient } from 'pg';
import { withTeamErrors } from './connection';
import { INTERNAL_FUNCTIONS, LATEST_SCHEMA_VERSION, MEMBER_FUNCTIONS, MIGRATIONS, TABLES } from './team-schema';

export const DEFAULT_MEMBER_ROLE = 'openagent_member';
const LOCK_KEY = 'openagent_team_schema';

export interface InitReport {
  /** The schema the objects are in (the connection's current schema). */
  schema: string;
  fromVersion: number;
  toVersion: number;
  /** Descriptions of the migrations applied now (empty when the schema was current). */
  applied: string[];
  memberRole: string;
  /** Whether the member role was created now (it is a NOLOGIN group role). */
  roleCreated: boolean;
}

/** The schema version the database is at (0 when the team schema is not there). */
export async function schemaVersion(client: Pool | PoolClient): Promise<number> {
  const exists = await client.query<{ present: boolean }>(
    `SELECT to_regclass('openagent_schema_version') IS NOT NULL AS present`,
  );
  if (!exists.rows[0]?.present) return 0;
  const result = await client.query<{ version: number | null }>(
    'SELECT max(version) AS version FROM openagent_schema_version',
  );
  return result.rows[0]?.version ?? 0;
}

/**
 * Brings the schema to the newest version and grants `memberRole` (created when missing) what
 * members need. Needs a role that may create objects in the current schema (the database's
 * owner) and, the first time, create roles.
 */
export async function initTeamSchema(
  pool: Pool,
  options: { memberRole?: string; target?: string } = {},
): Promise<InitReport> {
  const memberRole = options.memberRole ?? DEFAULT_MEMBER_ROLE;
  if (!/^[a-z_][a-z0-9_$]*$/.test(memberRole))
    throw new Error(`The member role "${memberRole}" is not a plain lower-case SQL name.`);
  return withTeamErrors(options.target ?? 'the team database', async () => {
    const client = await pool.connect();
    // A checked-out client's dead socket is also emitted as an event: the failing query reports it.
    const onError = () => undefined;
    client.on('error', onError);
    try {
      const schemaRow = await client.query<{ schema: string | null }>('SELECT current_schema() AS schema');
      const schemaName = schemaRow.rows[0]?.schema;
      if (!schemaName) throw new Error('The connection has no current schema (check search_path).');
      const schema = quoteIdent(schemaName);
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [LOCK_KEY]);
      try {
        await client.query(`CREATE TABLE IF NOT EXISTS openagent_schema_version (
          version integer PRIMARY KEY,
          description text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )`);
        const fromVersion = await schemaVersion(client);
        if (fromVersion > LATEST_SCHEMA_VERSION)
          throw new Error(
            `The team schema is at version ${fromVersion}, newer than this OpenAgent knows (${LATEST_SCHEMA_VERSION}): update OpenAgent.`,
          );
        const applied: string[] = [];
        for (const migration of MIGRATIONS.filter((each) => each.version > fromVersion)) {
          await inTransaction(client, async () => {
            await client.query(migration.sql(schema));
            // Functions of later migrations do not exist yet: each is revoked once it does.
            for (const signature of [...MEMBER_FUNCTIONS, ...INTERNAL_FUNCTIONS]) {
              const exists = await client.query<{ present: boolean }>(
                'SELECT to_regprocedure($1) IS NOT NULL AS present',
                [signature],
              );
              if (exists.rows[0]?.present) await client.query(`REVOKE ALL ON FUNCTION ${signature} FROM PUBLIC`);
            }
            await client.query('INSERT INTO openagent_schema_version (version, description) VALUES ($1, $2)', [
              migration.version,
              migration.description,
            ]);
          });
          applied.push(`${migration.version}: ${migration.description}`);
        }
        const roleCreated = await inTransaction(client, () => grantMembers(client, schema, memberRole));
        return { schema: schemaName, fromVersion, toVersion: LATEST_SCHEMA_VERSION, applied, memberRole, roleCreated };
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [LOCK_KEY]).catch(() => undefined);
      }
    } finally {
      client.removeListener('error', onError);
      client.release();
    }
  });
}

/** What a member may do (see team-schema.ts); returns whether the role was created. */
async function grantMembers(client: PoolClient, schema: string, memberRole: string): Promise<boolean> {
  const existing = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [memberRole]);
  const role = quoteIdent(memberRole);
  if (existing.rowCount === 0) await client.query(`CREATE ROLE ${role} NOLOGIN`);
  await client.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
  // The SECURITY DEFINER functions resolve names in this schema: a member who may create in it
  // (everyone may in `public` on a database from before PostgreSQL 15) could plant a closer
  // match for a function they call and run it as the owner.
  await client.query(`REVOKE CREATE ON SCHEMA ${schema} FROM PUBLIC, ${role}`);
  const creators = await client.query<{ login: string }>(
    `SELECT r.rolname AS login FROM pg_roles r
     WHERE pg_has_role(r.oid, $1, 'MEMBER') AND NOT r.rolsuper AND r.rolname <> current_user
       AND has_schema_privilege(r.oid, $2, 'CREATE') ORDER BY 1`,
    [memberRole, schema.slice(1, -1).replace(/""/g, '"')],
  );
  if (creators.rows.length > 0)
    throw new Error(
      `Members may create objects in the team schema, where its functions look names up: REVOKE CREATE ON SCHEMA ${schema} FROM ${creators.rows.map((row) => row.login).join(', ')}.`,
    );
  await client.query(`REVOKE ALL ON ${TABLES.join(', ')} FROM ${role}`);
  await client.query(`GRANT SELECT ON ${TABLES.join(', ')} TO ${role}`);
  await client.query(`GRANT INSERT ON audit, team_memory TO ${role}`);
  for (const signature of MEMBER_FUNCTIONS) await client.query(`GRANT EXECUTE ON FUNCTION ${signature} TO ${role}`);
  return existing.rowCount === 0;
}

async function inTransaction<T>(client: PoolClient, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The SQL a team lead runs to let someone in (the password is theirs to choose). */
export function addMemberSql(memberRole: string, login = 'alice'): string {
  return `CREATE ROLE ${login} LOGIN PASSWORD '…' IN ROLE ${memberRole};`;
}
