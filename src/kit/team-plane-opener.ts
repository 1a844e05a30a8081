/**
 * Opens the team control plane (SPEC 5a): the PostgreSQL adapter, the member's identity, and the
 * team policy kept in a file beside the store so a member offline still follows it. Loaded only
 * when a team is configured (team-opener.ts requires it on first use).
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { TeamPlane, type TeamPolicyCache } from '../core/team/team-plane';
import { readRegularFile } from '../store/regular-file';
import { resolveTeamIdentity } from '../node/team-identity';
import { PgTeamStore } from '../team/pg-team-store';
import type { TeamOpenerOptions } from './team-opener';

export async function openTeamPlane(options: TeamOpenerOptions): Promise<TeamPlane> {
  const identity = await resolveTeamIdentity({ member: options.member, root: options.root });
  return new TeamPlane({
    store: new PgTeamStore(options.url),
    identity,
    cache: fileCache(options.cacheFile),
    outbox: options.outbox,
    now: () => Date.now(),
    newId: randomUUID,
    onPolicyMistakes: options.onPolicyMistakes,
  });
}

function fileCache(file: string): TeamPolicyCache {
  // Only a regular file, read without blocking: a pipe or a device here must not hang the start.
  const read = () =>
    readRegularFile(file, CACHE_CAP).then(
      (bytes) => bytes.toString('utf8'),
      () => undefined,
    );
  return {
    read,
    async write(text) {
      if ((await read()) === text) return;
      await fs.mkdir(path.dirname(file), { recursive: true });
      const temp = `${file}.${process.pid}-${randomUUID().slice(0, 8)}.tmp`;
      // Created, never opened if something is there: a link or a pipe at the temp name is not written through.
      await fs.writeFile(temp, text, { flag: 'wx' });
      await fs.rename(temp, file);
    },
  };
}

/** A team policy is a few KB: a larger cache file is not read into memory. */
const CACHE_CAP = 16 * 1024 * 1024;
