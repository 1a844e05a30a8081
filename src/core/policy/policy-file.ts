/**
 * One policy file (agent.yaml) as both hosts read it: parsed only when its text changed, not
 * applied at all while it has mistakes, and those mistakes told once per version of the file
 * (the agent then asks before every change until it is fixed). The host supplies the text —
 * the editor through its file system and watcher, the CLI from disk before each conversation.
 */
import { parseAgentPolicy, type AgentPolicy, type PolicyProblem } from './agent-policy';

export class PolicyFile {
  private last: { text: string; policy: AgentPolicy | undefined } | undefined;
  private readonly told = new Set<string>();

  /** @param onMistakes told once per distinct text that has mistakes. */
  constructor(private readonly onMistakes: (problems: PolicyProblem[]) => void) {}

  /** The policy `text` holds (undefined: no file, or mistakes). */
  read(text: string | undefined): AgentPolicy | undefined {
    if (text === undefined) {
      this.last = undefined;
      return undefined;
    }
    if (text === this.last?.text) return this.last.policy;
    const { policy, problems } = parseAgentPolicy(text);
    this.last = { text, policy };
    if (problems.length > 0 && !this.told.has(text)) {
      this.told.add(text);
      this.onMistakes(problems);
    }
    return policy;
  }

  /** What the last text read holds. */
  get current(): AgentPolicy | undefined {
    return this.last?.policy;
  }
}
