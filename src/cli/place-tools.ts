/**
 * The product's tools and the terminal's approvals for a run that works somewhere other than the
 * folder the CLI was started in (a re-run's worktree, a live replay's worktree or scratch copy):
 * files, search and confined commands rooted there, and questions asked on the terminal (or
 * refused with a reason when there is none).
 */
import type { AgentPolicy } from '../core/policy/agent-policy';
import type { ApprovalGate } from '../core/policy/approval';
import type { AnyTool } from '../core/tools/tool';
import { createWorkspaceTools } from '../core/tools/builtin/workspace-tools';
import { ChildProcessShell } from '../node/child-process-shell';
import { NodeWorkspace } from '../node/node-workspace';
import { findRipgrep, RipgrepSearch } from '../node/ripgrep-search';
import { OsSandbox } from '../node/sandbox/os-sandbox';
import { LineHistory } from './line-history';
import { LineReader } from './line-reader';
import type { Output } from './output';
import { NoTerminalApprovalGate, TerminalApprovalGate } from './terminal-approval-gate';

/** Tools rooted in `root`, commands confined there under `policy`'s network and environment rules. */
export function toolsIn(
  root: string,
  policy: AgentPolicy | undefined,
  env: NodeJS.ProcessEnv,
): { workspace: NodeWorkspace; tools: AnyTool[] } {
  const workspace = new NodeWorkspace(root);
  const sandbox = new OsSandbox(
    {
      mode: () => 'auto',
      network: () => policy?.commands?.network === true,
      passEnv: () => policy?.commands?.pass_env ?? [],
      root: () => root,
    },
    { env },
  );
  const tools = createWorkspaceTools({
    files: workspace,
    search: new RipgrepSearch(
      findRipgrep([]),
      () => [],
      () => root,
    ),
    shell: new ChildProcessShell(undefined, sandbox),
    cwd: () => root,
    knowledge: [],
  });
  return { workspace, tools };
}

/** Questions on the terminal when stdin is one; else every question is refused, saying why. Close `reader` after. */
export function terminalApprovals(
  streams: { stdin?: NodeJS.ReadStream; stderr: NodeJS.WritableStream },
  output: Output,
  workspace: NodeWorkspace,
): { asking: ApprovalGate; reader?: LineReader } {
  const reader = streams.stdin?.isTTY
    ? new LineReader(streams.stdin, streams.stderr, output, new LineHistory(undefined))
    : undefined;
  const asking: ApprovalGate = reader
    ? new TerminalApprovalGate({
        output,
        ask: (question, signal) => reader.readLine(question, { signal }),
        workspace: () => workspace,
        approveRest: () => undefined,
      })
    : new NoTerminalApprovalGate(output);
  return { asking, ...(reader ? { reader } : {}) };
}
