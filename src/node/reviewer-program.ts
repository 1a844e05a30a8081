/**
 * Runs the reviewer program (approvals.reviewer, issue 37) for one tool call: the call as one
 * JSON object on stdin, one JSON line back on stdout (core/policy/reviewer.ts reads it). Any
 * failure is an answer too — `ask`, with words the user reads: it could not start, it crashed or
 * exited non-zero, it timed out, it printed more than 64 KB, it printed garbage.
 *
 * It runs outside the workspace sandbox, as the user's own program: only the user's or the
 * team's policy can name it (never the repository's), it routinely needs what the sandbox takes
 * away (its own credentials, the network to reach a team service or a classifier), and the
 * model's text reaches it only as JSON data on stdin — the command is an argument vector, run
 * without a shell, from the home folder, so nothing of the call or the workspace picks what
 * runs. Whatever it starts is killed with it when it answers, times out, overflows or the run
 * is stopped (its group, its descendants, whatever carries its run marker): it leaves nothing
 * running, and a child that holds its stdout open does not hold the call.
 */
import { scrubEnvironment } from '../core/policy/command-env';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import { onAbort } from '../core/abort';
import { redactText, redactValue, type KnownSecrets } from '../core/llm/redact';
import {
  failed,
  MAX_ANSWER_BYTES,
  readReviewAnswer,
  reviewerInput,
  type ReviewAnswer,
  type ReviewRequest,
  type ToolReviewer,
} from '../core/policy/reviewer';
import { describeDuration, reviewerTimeoutMs, type ReviewerSetting } from '../core/policy/reviewer-setting';
import { visibleText } from '../core/text/visible-text';
import { CLOSE_GRACE_MS, killTree } from './process-tree';

/** stderr kept: its last line says why a program that failed did. */
const MAX_STDERR_CHARS = 4 * 1024;

export interface ProgramReviewerOptions {
  /** The reviewer in force now (the policy's `approvals.reviewer`), read at each call. */
  setting: () => ReviewerSetting | undefined;
  /** Secrets in use: redacted from what the program reads and from its words we show. */
  secrets?: () => KnownSecrets;
  /** The team member whose agent asks (a team configured), for the program to read. */
  member?: () => string | undefined;
  /** Where it runs and relative paths resolve from: the home folder unless a test says otherwise. */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export class ProgramReviewer implements ToolReviewer {
  constructor(private readonly options: ProgramReviewerOptions) {}

  readonly review = async (request: ReviewRequest, signal: AbortSignal): Promise<ReviewAnswer | undefined> => {
    const setting = this.options.setting();
    if (!setting) return undefined;
    const secrets = this.options.secrets?.() ?? [];
    // The whole input is redacted (the command line too), as the audit trail keeps it.
    const input = redactValue(reviewerInput(request, request.input, this.options.member?.()), secrets);
    const timeoutMs = reviewerTimeoutMs(setting);
    const run = await runProgram(setting.command, `${JSON.stringify(input)}\n`, {
      timeoutMs,
      cwd: this.options.cwd ?? os.homedir(),
      // The user's keys stay theirs: a team's program gets the environment commands get, scrubbed.
      env: scrubEnvironment(this.options.env ?? process.env),
      signal,
    });
    return answerOf(run, timeoutMs, secrets);
  };
}

/** How one run of the program ended. */
export interface ProgramRun {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  /** The signal that ended it (one of ours when it timed out or overflowed). */
  killedBy: NodeJS.Signals | null;
  timedOut: boolean;
  overflowed: boolean;
  /** It could not be started (no such program, not executable). */
  startError?: string;
  /** The process id it ran as (tests look for what is left of it). */
  pid?: number;
}

function answerOf(run: ProgramRun, timeoutMs: number, secrets: KnownSecrets): ReviewAnswer {
  if (run.startError !== undefined) return failed(`the reviewer program could not be started (${run.startError})`);
  if (run.timedOut) return failed(`the reviewer program timed out after ${describeDuration(timeoutMs)}`);
  if (run.overflowed)
    return failed(`the reviewer program printed more than ${MAX_ANSWER_BYTES / 1024} KB and was stopped`);
  const said = lastLine(redactText(run.stderr, secrets));
  const because = said ? `: ${said}` : '';
  if (run.killedBy) return failed(`the reviewer program was killed by ${run.killedBy}${because}`);
  if (run.exitCode !== 0) return failed(`the reviewer program exited with code ${run.exitCode ?? '?'}${because}`);
  return readReviewAnswer(run.stdout);
}

/** Its last words: the last line naming an error (Node ends with its version, Python with the error), else the last. */
function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((candidate) => candidate.trim())
    .filter(Boolean);
  const line = lines.findLast((candidate) => /error|exception|fatal|panic/i.test(candidate)) ?? lines.at(-1) ?? '';
  const clean = visibleText(line, { keepNewlines: false });
  return clean.length > 200 ? `${clean.slice(0, 199)}…` : clean;
}

/** Runs `command` with `stdin`; resolves when it ended and its pipes closed, or it was stopped. */
export function runProgram(
  command: readonly string[],
  stdin: string,
  options: { timeoutMs: number; cwd: string; env: NodeJS.ProcessEnv; signal: AbortSignal },
): Promise<ProgramRun> {
  return new Promise((resolve) => {
    const id = randomBytes(8).toString('hex');
    const marker = `OPENAGENT_RUN=${id}`;
    const posix = process.platform !== 'win32';
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command[0]!, command.slice(1), {
        cwd: options.cwd,
        env: { ...options.env, OPENAGENT_RUN: id },
        stdio: ['pipe', 'pipe', 'pipe'],
        // Its own process group: the whole group goes when it is killed.
        detached: posix,
        windowsHide: true,
      });
    } catch (error) {
      resolve(ended({ startError: (error as Error).message }));
      return;
    }
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let timedOut = false;
    let overflowed = false;
    let finished = false;
    const kill = () => {
      if (child.pid !== undefined && posix) killTree(child.pid, marker);
      else child.kill('SIGKILL');
    };
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    // After it exits (or is killed), its pipes get a moment; a child it left may hold them open.
    const finishSoon = () => {
      graceTimer ??= setTimeout(() => finish(child.exitCode, child.signalCode), CLOSE_GRACE_MS);
    };
    const stop = () => {
      kill();
      finishSoon();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const unlinkAbort = onAbort(options.signal, stop);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (overflowed) return;
      stdoutBytes += chunk.length;
      if (stdoutBytes > MAX_ANSWER_BYTES) {
        // Reading on would be reading without end: the answer is already no answer.
        overflowed = true;
        stop();
        return;
      }
      stdout.push(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-MAX_STDERR_CHARS);
    });
    // A program that does not read its stdin (or exits first) closes the pipe: not an error of ours.
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(stdin);
    const finish = (exitCode: number | null, killedBy: NodeJS.Signals | null, startError?: string) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      unlinkAbort();
      // Whatever it started in the background goes with it.
      kill();
      child.stdin?.destroy();
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve({
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr,
        exitCode,
        killedBy,
        timedOut,
        overflowed,
        ...(startError !== undefined ? { startError } : {}),
        ...(child.pid !== undefined ? { pid: child.pid } : {}),
      });
    };
    child.on('error', (error) => finish(null, null, error.message));
    child.on('exit', finishSoon);
    child.on('close', (code, signal) => finish(code, signal));
  });
}

function ended(partial: Partial<ProgramRun>): ProgramRun {
  return { stdout: '', stderr: '', exitCode: null, killedBy: null, timedOut: false, overflowed: false, ...partial };
}
