/**
 * `openagent replay ID --live-tools [--until STEP] [--json] [--yes]`: replays a recorded run with
 * the recording's model answers and the tools run for real (core: live-replay.ts), in a fresh
 * worktree at the recorded commit, or a scratch copy where the recorded place had no git. The
 * approvals are the terminal's, as in any CLI run (--yes approves what may be approved; refused
 * for an imported run, which never runs a live tool without asking). Prints each tool step's
 * live result against the recorded one, the files compared, the first divergence, and where the
 * place is and how to remove it. Exit 0 when the world answered the same, 1 otherwise.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { HeldSecrets } from '../core/llm/held-secrets';
import { AutoApprovalGate } from '../core/policy/auto-approval';
import { toolPolicyFrom } from '../core/policy/policy-rules';
import { replayWithLiveTools } from '../core/replay/live-replay';
import { renderLiveReplay } from '../core/replay/live-replay-report';
import { RecordingProblem, type LoadedRecording } from '../core/replay/loaded-recording';
import { resolveWorkspacePath } from '../core/workspace/workspace-path';
import { makeLivePlace } from '../node/live-replay-place';
import { EventPrinter } from './event-printer';
import { terminalApprovals, toolsIn } from './place-tools';
import { keptTeamPolicy, rerunApprovers } from './rerun-team';
import { Output } from './output';
import { usualPolicy } from './rerun-command';
import { colorWanted, createStyle } from './style';

export interface LiveReplayFlags {
  until?: number;
  json?: boolean;
  yes?: boolean;
}

export interface LiveReplayStreams {
  stdin?: NodeJS.ReadStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** A file compared at the end larger than this is not read (it counts as differing). */
const MAX_COMPARED_FILE_BYTES = 10 * 1024 * 1024;

export async function runLiveReplay(
  source: { loaded: LoadedRecording; imported: boolean },
  flags: LiveReplayFlags,
  env: NodeJS.ProcessEnv,
  streams: LiveReplayStreams,
): Promise<number> {
  const { loaded } = source;
  const manifest = loaded.recording.manifest;
  const imported = source.imported || (manifest as { imported?: unknown }).imported === true;
  if (imported && flags.yes)
    throw new RecordingProblem(
      'This run was imported from another machine: it never runs a live tool without asking. Replay it without --yes.',
    );
  if (flags.until !== undefined && (flags.until < 1 || flags.until > loaded.lastStep))
    throw new RecordingProblem(
      `Step ${flags.until} is out of range: this recording has steps 1 to ${loaded.lastStep}.`,
    );
  const heldSecrets = new HeldSecrets();
  heldSecrets.addEnvironment(env);
  // With --json the live output goes to stderr: stdout holds the report alone.
  const output = new Output(
    flags.json ? streams.stderr : streams.stdout,
    streams.stderr,
    streams.stderr,
    createStyle(colorWanted(streams.stdout, env)),
    heldSecrets.redact,
  );
  const home = env.HOME || os.homedir();
  const place = await makeLivePlace({
    manifest,
    cwd: process.cwd(),
    baseFolder: env.OPENAGENT_WORKTREES || path.join(home, '.openagent', 'worktrees'),
    short: randomUUID().slice(0, 8),
  });
  output.error(
    place.worktree
      ? `Replaying with live tools in the worktree ${place.root} on ${place.worktree.branch} (at ${place.worktree.base.commit.slice(0, 8)}, the recorded commit).`
      : `Replaying with live tools in ${place.root}.`,
  );
  for (const notice of place.notices) output.error(notice);

  const usual = usualPolicy(home, place.root, output, keptTeamPolicy(env));
  const { workspace, tools } = toolsIn(place.root, usual.policy, env);
  const approvers = rerunApprovers(env, heldSecrets, { root: place.root, policy: () => usual.policy, workspace });
  const { asking, reader } = terminalApprovals(streams, output, workspace);
  const printer = new EventPrinter(output);
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  process.on('SIGINT', onSigint);
  try {
    const outcome = await replayWithLiveTools(
      loaded,
      {
        tools,
        root: place.root,
        policy: approvers.policy(
          toolPolicyFrom(
            () => usual.policy,
            undefined,
            () => usual.broken,
          ),
        ),
        approvals: approvers.gate(new AutoApprovalGate(asking, () => flags.yes === true && !imported)),
        imported,
        readFile: async (relative) => {
          const absolute = await resolveWorkspacePath(place.root, relative, workspace);
          const stat = fs.statSync(absolute, { throwIfNoEntry: false });
          if (!stat?.isFile() || stat.size > MAX_COMPARED_FILE_BYTES) return undefined;
          return fs.readFileSync(absolute, 'utf8');
        },
        onEvent: (event) => printer.print(event),
        signal: stop.signal,
      },
      flags.until !== undefined ? { until: flags.until } : {},
    );
    output.newline();
    const placeInfo = {
      root: place.root,
      ...(place.worktree
        ? { worktree: { branch: place.worktree.branch, repository: place.worktree.workspaceRoot } }
        : {}),
    };
    if (flags.json) {
      const { events: _events, ...report } = outcome;
      streams.stdout.write(
        heldSecrets.redact(
          `${JSON.stringify({ conversationId: manifest.conversationId, ...report, place: placeInfo }, null, 2)}\n`,
        ),
      );
    } else streams.stdout.write(heldSecrets.redact(renderLiveReplay(manifest.conversationId, outcome, placeInfo)));
    return outcome.sameWorld ? 0 : 1;
  } finally {
    process.off('SIGINT', onSigint);
    reader?.close();
    await approvers.close();
  }
}
