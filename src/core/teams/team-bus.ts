/**
 * A team's message bus (SPEC 2.8): persisted inboxes, one per agent ("lead" and each
 * teammate), and the protocol requests with ids — graceful shutdown (lead → teammate) and plan
 * approval (teammate → lead). Every change is one atomic update of the stored team, so the
 * concurrent agents never lose a message.
 */
import type { ProtocolRequest, TeamData, TeamMessage, TeamStorage } from '../ports';

export const LEAD = 'lead';

export function emptyTeam(): TeamData {
  return { members: [], inboxes: {}, requests: [], nextRequest: 1 };
}

export class TeamError extends Error {
  override readonly name = 'TeamError';
}

export class TeamBus {
  constructor(
    private readonly storage: TeamStorage,
    readonly teamId: string,
    private readonly now: () => number,
  ) {}

  read(): Promise<TeamData> {
    return this.storage.read(this.teamId);
  }

  async addMember(name: string, role: string, limit: number): Promise<void> {
    await this.change((team) => {
      if (name === LEAD || team.members.some((member) => member.name === name))
        throw new TeamError(`There is already a teammate named "${name}".`);
      if (team.members.length >= limit)
        throw new TeamError(`The team is full: at most ${limit} teammates (the openagent.maxTeammates setting).`);
      team.members.push({ name, role });
    });
  }

  /** Sends a message; `to` is a member's name or "lead". */
  async send(message: Omit<TeamMessage, 'time'>): Promise<void> {
    await this.change((team) => {
      this.checkRecipient(team, message.to);
      (team.inboxes[message.to] ??= []).push({ ...message, time: this.now() });
    });
  }

  /** Sends to everyone but the sender; returns how many got it. */
  async broadcast(from: string, text: string): Promise<number> {
    return this.change((team) => {
      const recipients = [LEAD, ...team.members.map((member) => member.name)].filter((name) => name !== from);
      for (const to of recipients)
        (team.inboxes[to] ??= []).push({ from, to, text, time: this.now(), kind: 'message' });
      return recipients.length;
    });
  }

  /** Takes every unread message of `name`. */
  async drain(name: string): Promise<TeamMessage[]> {
    return this.change((team) => {
      const messages = team.inboxes[name] ?? [];
      team.inboxes[name] = [];
      return messages;
    });
  }

  /** Opens a protocol request and delivers it to its addressee; returns its id. */
  async request(kind: ProtocolRequest['kind'], from: string, to: string, text: string): Promise<string> {
    return this.change((team) => {
      this.checkRecipient(team, to);
      const id = `req-${team.nextRequest++}`;
      team.requests.push({ id, kind, from, to, text, status: 'pending' });
      (team.inboxes[to] ??= []).push({
        from,
        to,
        text,
        time: this.now(),
        requestId: id,
        kind: kind === 'shutdown' ? 'shutdown_request' : 'plan_review',
      });
      return id;
    });
  }

  /**
   * Answers a request addressed to `by` — the one named, or else the oldest pending one from
   * `to` — and tells the requester. Returns the request as answered.
   */
  async respond(
    by: string,
    to: string,
    requestId: string | undefined,
    approve: boolean,
    text: string,
  ): Promise<ProtocolRequest> {
    return this.change((team) => {
      const request = requestId
        ? team.requests.find((candidate) => candidate.id === requestId)
        : team.requests.find(
            (candidate) => candidate.to === by && candidate.from === to && candidate.status === 'pending',
          );
      if (!request)
        throw new TeamError(
          requestId ? `There is no request ${requestId}.` : `There is no open request from ${to} to answer.`,
        );
      if (request.to !== by) throw new TeamError(`${request.id} was sent to ${request.to}: only they can answer it.`);
      if (request.status !== 'pending') throw new TeamError(`${request.id} was already ${request.status}.`);
      request.status = approve ? 'approved' : 'rejected';
      request.response = text;
      (team.inboxes[request.from] ??= []).push({
        from: by,
        to: request.from,
        text,
        time: this.now(),
        requestId: request.id,
        kind: 'response',
      });
      return { ...request };
    });
  }

  async requestStatus(id: string): Promise<ProtocolRequest> {
    const request = (await this.read()).requests.find((candidate) => candidate.id === id);
    if (!request) throw new TeamError(`There is no request ${id}.`);
    return request;
  }

  private checkRecipient(team: TeamData, to: string): void {
    if (to !== LEAD && !team.members.some((member) => member.name === to))
      throw new TeamError(
        `There is no teammate named "${to}". Team: ${[LEAD, ...team.members.map((m) => m.name)].join(', ')}.`,
      );
  }

  private change<Result>(apply: (team: TeamData) => Result): Promise<Result> {
    return this.storage.update(this.teamId, (stored) => {
      const team = structuredClone(stored);
      return { team, result: apply(team) };
    });
  }
}

/** Messages as the model reads them, protocol ones with what to do. */
export function formatMessages(messages: readonly TeamMessage[]): string {
  return messages
    .map((message) => {
      switch (message.kind) {
        case 'shutdown_request':
          return `[shutdown_request ${message.requestId} from ${message.from}] ${message.text}\nFinish what you are doing, then answer with send_message to "${message.from}" with approve: true (you stop then) — or approve: false and why.`;
        case 'plan_review':
          return `[plan_review ${message.requestId} from ${message.from}]\n${message.text}\nAnswer with send_message to "${message.from}" with respondTo "${message.requestId}" and approve true or false (with what to change).`;
        case 'response':
          return `[answer to ${message.requestId} from ${message.from}] ${message.text}`;
        default:
          return `[message from ${message.from}] ${message.text}`;
      }
    })
    .join('\n\n');
}
