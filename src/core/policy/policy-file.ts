/**
 * One policy file (agent.yaml) as both hosts read it: parsed only when its text changed, not
 * applied at all while it has mistakes or cannot be read as a policy (a folder, a FIFO, too
 * large, unreadable), and the problem told once per version of the file. While it is broken the
 * host says so and every change asks a person (policy-rules.ts `broken`): a file meant to deny
 * must not leave things allowed. The host supplies the text — the editor through its file
 * system and watcher, the CLI from disk before each conversation.
 */
import { parseAgentPolicy, wholeFileProblem, type AgentPolicy, type PolicyProblem } from './agent-policy';

export class PolicyFile {
  private last: { key: string; policy: AgentPolicy | undefined } | undefined;
  private readonly told = new Set<string>();

  /** @param onMistakes told once per distinct text (or unusable state) that has mistakes. */
  constructor(private readonly onMistakes: (problems: PolicyProblem[]) => void) {}

  /** The policy `text` holds (undefined: no file, or mistakes). */
  read(text: string | undefined): AgentPolicy | undefined {
    if (text === undefined) {
      this.last = undefined;
      return undefined;
    }
    if (text === this.last?.key) return this.last.policy;
    const { policy, problems } = parseAgentPolicy(text);
    this.last = { key: text, policy };
    this.tell(text, problems);
    return policy;
  }

  /** The file is there but is no policy text (a folder, a FIFO, too large, unreadable): `problem` says why. */
  unusable(problem: string): undefined {
    // NUL never ends a text that parses, so this key cannot be a file's text.
    const key = `\0${problem}`;
    this.last = { key, policy: undefined };
    this.tell(key, [wholeFileProblem(problem)]);
    return undefined;
  }

  /** What the last text read holds. */
  get current(): AgentPolicy | undefined {
    return this.last?.policy;
  }

  /** The file is there and nothing of it is applied (mistakes, or not readable as a policy). */
  get broken(): boolean {
    return this.last !== undefined && this.last.policy === undefined;
  }

  private tell(key: string, problems: PolicyProblem[]): void {
    if (problems.length === 0 || this.told.has(key)) return;
    this.told.add(key);
    this.onMistakes(problems);
  }
}
