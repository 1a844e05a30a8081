/**
 * Opens the team control plane (SPEC 5a): the PostgreSQL adapter, the member's identity, and the
 * team policy kept in a file beside the store so a member offline still follows it. Loaded only
 * when a team is configured (team-opener.ts requires it on first use).
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { TeamPlane, type TeamPolicyCache } from '../core/team/team-plane';
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
  return {
    read: () => fs.readFile(file, 'utf8').catch(() => undefined),
    async write(text) {
      if ((await fs.readFile(file, 'utf8').catch(() => undefined)) === text) return;
      await fs.mkdir(path.dirname(file), { recursive: true });
      const temp = `${file}.${process.pid}.tmp`;
      await fs.writeFile(temp, text);
      await fs.rename(temp, file);
    },
  };
}
