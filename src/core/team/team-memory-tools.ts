/**
 * Team memory (SPEC 5a): notes in the team database, scoped to the whole team, to this
 * repository, or to the member — found again by full-text search. Writing a note every member's
 * agent can read (team or repository scope) always asks, like any shared write.
 */
import { z } from 'zod';
import { defineTool, type AnyTool } from '../tools/tool';
import type { TeamIdentity, TeamMemoryScope, TeamNote, TeamStore } from './team-store';

/** One note stays short: memory is for facts, not documents. */
export const MAX_TEAM_NOTE_CHARS = 4_000;
const RESULTS = 10;

const SCOPES = ['team', 'repository', 'member'] as const;

export function createTeamMemoryTools(store: () => TeamStore | undefined, identity: () => TeamIdentity): AnyTool[] {
  const search = defineTool({
    name: 'team_memory_search',
    description:
      "Search the team's shared memory: notes kept by every member's agent — about the whole team, this repository, or " +
      'your own. Use words that would appear in the note (a tool, a service, a convention). Returns up to ' +
      `${RESULTS} notes, best first, each with who wrote it and when.`,
    inputSchema: z.object({
      query: z.string().trim().min(1).max(500).describe('Words to find, e.g. "deploy staging" or "release checklist".'),
      scope: z.enum(SCOPES).optional().describe('Only this scope (default: all three).'),
    }),
    readOnly: true,
    needsApproval: false,
    summarize: (input) => `search team memory for "${input.query}"`,
    async execute(input) {
      const team = store();
      if (!team) return { output: 'No team database is configured.', isError: true };
      const notes = await team.searchMemory({
        text: input.query,
        identity: identity(),
        ...(input.scope ? { scopes: [input.scope] } : {}),
        limit: RESULTS,
      });
      if (notes.length === 0) return `No team notes match "${input.query}".`;
      return notes.map(describeNote).join('\n\n');
    },
  });
  const write = defineTool({
    name: 'team_memory_write',
    description:
      'Keep a note in the team\'s shared memory for later conversations of every member: scope "team" (everyone, every ' +
      'repository), "repository" (everyone working on this repository) or "member" (only you). A short lasting fact — a ' +
      'convention, how to run or deploy something, a decision and why — never secrets. Shared notes are approved first.',
    inputSchema: z.object({
      note: z.string().trim().min(1).max(MAX_TEAM_NOTE_CHARS).describe('The note, a sentence or two.'),
      scope: z.enum(SCOPES).describe('team, repository or member'),
    }),
    readOnly: false,
    needsApproval: true,
    traits: {
      sharedWrite: (input) =>
        input.scope === 'member'
          ? undefined
          : `it writes the team's shared memory (${input.scope} scope), which every member's agent reads`,
    },
    summarize: (input) => `remember in team memory (${input.scope}): ${clip(input.note)}`,
    async execute(input) {
      const team = store();
      if (!team) return { output: 'No team database is configured.', isError: true };
      const who = identity();
      if (input.scope === 'repository' && !who.repository)
        return {
          output: 'This workspace has no repository the team knows; use scope "team" or "member".',
          isError: true,
        };
      const note = await team.remember({
        scope: input.scope as TeamMemoryScope,
        member: who.member,
        text: input.note,
        ...(input.scope === 'repository' ? { repository: who.repository } : {}),
      });
      return `Remembered in team memory (${note.scope} scope).`;
    },
  });
  return [search, write];
}

function describeNote(note: TeamNote): string {
  const where = note.scope === 'repository' ? `repository ${note.repository ?? ''}` : note.scope;
  return `[${where}] ${note.member}, ${new Date(note.createdAt).toISOString().slice(0, 10)}:\n${note.text}`;
}

function clip(text: string): string {
  const line = text.trim().replace(/\s+/g, ' ');
  return line.length > 120 ? `${line.slice(0, 117)}…` : line;
}
