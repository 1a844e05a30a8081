/** Teams as JSON files, one per team (`<folder>/<teamId>.json`), safe under concurrent writers. */
import type { TeamData, TeamStorage } from '../core/ports';
import { emptyTeam } from '../core/teams/team-bus';
import { documentFile, LockedJsonFiles } from './locked-json-file';

export class FileTeamStorage implements TeamStorage {
  private readonly files = new LockedJsonFiles<TeamData>(emptyTeam, (data) => {
    const team = data as Partial<TeamData> | null;
    if (!Array.isArray(team?.members) || typeof team.inboxes !== 'object' || !Array.isArray(team.requests))
      throw new Error('not a team');
    return {
      members: team.members,
      inboxes: team.inboxes ?? {},
      requests: team.requests,
      nextRequest: team.nextRequest ?? 1,
    };
  });

  constructor(private readonly folder: string) {}

  read(teamId: string): Promise<TeamData> {
    return this.files.read(documentFile(this.folder, teamId));
  }

  update<Result>(teamId: string, change: (team: TeamData) => { team: TeamData; result: Result }): Promise<Result> {
    return this.files.update(documentFile(this.folder, teamId), (document) => {
      const { team, result } = change(document);
      return { document: team, result };
    });
  }
}
