/**
 * Opens the team control plane (SPEC 5a): the PostgreSQL adapter, the member's identity, and the
 * team policy kept in a file beside the store so a member offline still follows it. Loaded only
 * when a team is configured (team-opener.ts requires it on first use).
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { TeamPlane, type TeamPolicyCache } from '../core/team/team-plane';
import { readPolicyText } from '../node/policy-text';
import { resolveTeamIdentity } from '../node/team-identity';
import { PgTeamStore } from '../team/pg-team-store';
import { PgTeamApprovals } from '../team/pg-team-approvals';
import type { TeamApprovals } from '../core/team/team-approvals';
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

/** Named approvers' requests and decisions on the team database (issue 37). */
export function openTeamApprovals(url: string): TeamApprovals {
  return new PgTeamApprovals(url);
}

/**
 * The kept copy is read as a policy file is (policy-text.ts): a FIFO in its place hung every
 * start, `/dev/zero` was read until memory ran out. What is not a policy text there rejects with
 * the problem (the plane then applies nothing and asks); missing is no copy.
 */
function fileCache(file: string): TeamPolicyCache {
  const kept = () => {
    const read = readPolicyText(file);
    if (read.kind === 'unusable') throw new Error(`${file}: ${read.problem}`);
    return read.kind === 'text' ? read.text : undefined;
  };
  return {
    read: async () => kept(),
    async write(text) {
      // Whatever is in its place (even no file) is replaced whole by the rename below.
      if (
        (await Promise.resolve()
          .then(kept)
          .catch(() => undefined)) === text
      )
        return;
      await fs.mkdir(path.dirname(file), { recursive: true });
      const temp = `${file}.${process.pid}-${randomUUID().slice(0, 8)}.tmp`;
      // Created, never opened if something is there: a link or a pipe at the temp name is not written through.
      await fs.writeFile(temp, text, { flag: 'wx' });
      await fs.rename(temp, file);
    },
  };
}
