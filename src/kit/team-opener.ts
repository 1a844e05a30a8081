/**
 * Opens the team control plane (SPEC 5a) for either composition root: the PostgreSQL adapter
 * (loaded only when a team is configured), the member's identity, and the team policy kept in a
 * file beside the store so a member offline still follows it.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { PolicyProblem } from '../core/policy/agent-policy';
import type { ConversationStore } from '../core/ports';
import { TeamPlane, type TeamPolicyCache } from '../core/team/team-plane';
import { resolveTeamIdentity } from '../node/team-identity';

export interface TeamOpenerOptions {
  /** postgres://… (never shown: messages name the host and database only). */
  url: string;
  /** The member's identity when the user set one; otherwise git's user.email. */
  member?: string;
  /** The workspace folder (its origin remote names the repository). */
  root?: string;
  /** Where the last team policy is kept. */
  cacheFile: string;
  outbox: () => Promise<ConversationStore | undefined>;
  onPolicyMistakes: (problems: PolicyProblem[]) => void;
}

export async function openTeamPlane(options: TeamOpenerOptions): Promise<TeamPlane> {
  const { PgTeamStore } = await import('../team/pg-team-store');
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

/**
 * The store as the recorder uses it, sending the outbox once a record stamped for the team is
 * written (not before: the drain would not find it yet).
 */
export function sendingToTeam(store: ConversationStore, kick: () => void): ConversationStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property === 'recordUsage' || property === 'recordAudit')
        return async (record: { team?: unknown }) => {
          await (value as (record: unknown) => Promise<void>).call(target, record);
          if (record.team) kick();
        };
      return (value as (...args: unknown[]) => unknown).bind(target);
    },
  });
}
