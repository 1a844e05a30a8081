/**
 * The team control plane in the CLI (SPEC 5a), opt-in through OPENAGENT_TEAM_DATABASE_URL; the
 * member from OPENAGENT_TEAM_MEMBER or git's user.email. Opened in the background at start;
 * each conversation waits for it (prepare), so the team policy applies from the first prompt.
 */
import * as path from 'node:path';
import type { AgentPolicy } from '../core/policy/agent-policy';
import type { ConversationStore, TeamStamp } from '../core/ports';
import type { TeamPlane } from '../core/team/team-plane';
import { refusedNote } from '../core/team/team-status';
import { openTeamPlane } from '../kit/team-opener';

export class CliTeam {
  private plane: TeamPlane | undefined;
  private readonly opening: Promise<TeamPlane | undefined>;
  private toldUnreachable = false;
  private toldRefused = 0;

  constructor(options: {
    env: NodeJS.ProcessEnv;
    root: string;
    storeDirectory: string;
    outbox: () => Promise<ConversationStore | undefined>;
    warn: (message: string) => void;
  }) {
    const url = options.env.OPENAGENT_TEAM_DATABASE_URL;
    this.opening = url
      ? openTeamPlane({
          url,
          member: options.env.OPENAGENT_TEAM_MEMBER,
          root: options.root,
          cacheFile: path.join(options.storeDirectory, 'team-policy.yaml'),
          outbox: options.outbox,
          onPolicyMistakes: (problems) =>
            options.warn(
              `openagent: not applying the team policy: ${problems.length} mistake(s), the first at line ${problems[0]!.line + 1}: ${problems[0]!.message}.`,
            ),
        }).then(
          (plane) => {
            this.plane = plane;
            plane.onStatus((status) => {
              // Records the database refused for what they hold stay here: said once per new one.
              const refused = status.refused?.count ?? 0;
              if (refused > this.toldRefused) options.warn(`openagent:${refusedNote(status)}`);
              this.toldRefused = Math.max(this.toldRefused, refused);
              if (status.state !== 'unreachable' || this.toldUnreachable) return;
              this.toldUnreachable = true;
              options.warn(
                `openagent: the team database does not answer (${status.reason}); working on locally, records wait in the outbox.`,
              );
            });
            return plane;
          },
          (error: unknown) => {
            options.warn(
              `openagent: could not open the team database: ${error instanceof Error ? error.message : String(error)}`,
            );
            return undefined;
          },
        )
      : Promise.resolve(undefined);
  }

  current(): TeamPlane | undefined {
    return this.plane;
  }

  policy(): AgentPolicy | undefined {
    return this.plane?.policy();
  }

  /** The team policy is there but not applied (mistakes). */
  policyBroken(): boolean {
    return this.plane?.policyBroken === true;
  }

  stamp(): TeamStamp | undefined {
    return this.plane?.identity;
  }

  kick(): void {
    this.plane?.kick();
  }

  /** Before each conversation: opened, and the team policy read again. */
  async refresh(): Promise<void> {
    await (await this.opening)?.refresh();
  }

  /** At exit: sends what waits in the outbox if the database answers, and closes it. */
  async close(): Promise<void> {
    await (await this.opening)?.dispose();
  }
}
