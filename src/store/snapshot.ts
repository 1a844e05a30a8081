/**
 * The snapshot file (store.sqlite) opened as a database at the current schema: migrated forward,
 * refused when a newer OpenAgent wrote it, and — when nothing vouches for its bytes — checked
 * whole, so a damaged file is found instead of answering wrongly.
 */
import type { Database, SqlJsStatic } from 'sql.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema';
import { StoreError } from './store-error';

/** Opens snapshot bytes (or a new database) at the current schema; throws if they are damaged. */
export function openSnapshot(sql: SqlJsStatic, snapshot: Buffer | undefined, check: boolean): Database {
  const db = snapshot ? new sql.Database(snapshot) : new sql.Database();
  try {
    const version = Number(db.exec('PRAGMA user_version')[0]?.values[0]?.[0] ?? 0);
    if (version > SCHEMA_VERSION) {
      throw new StoreError(
        `The conversation store was written by a newer OpenAgent (schema ${version}, this one knows ${SCHEMA_VERSION}).`,
        'future_schema',
      );
    }
    // Every snapshot this code writes has a schema: an existing file without one (empty, or not ours) is unreadable.
    if (snapshot && version === 0) throw new Error('the file has no OpenAgent schema');
    if (snapshot && check) {
      const result = String(db.exec('PRAGMA integrity_check')[0]?.values[0]?.[0] ?? '');
      if (result !== 'ok') throw new Error(`it failed its integrity check: ${result.slice(0, 200)}`);
    }
    for (let next = version; next < SCHEMA_VERSION; next++)
      db.exec(`BEGIN; ${MIGRATIONS[next]}; PRAGMA user_version = ${next + 1}; COMMIT;`);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
