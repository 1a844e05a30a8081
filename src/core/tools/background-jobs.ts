/**
 * The background jobs of one conversation (SPEC 2.9): commands that run beside the agent.
 * `start` returns at once; `check` and `list` show a job's status and its output so far (escape
 * sequences stripped, capped keeping the end). A finished job's completion is handed out once by
 * `drainCompleted` — one of the loop's inboxes — so the model reads it at the top of its next
 * turn. Each job has a timeout, at most `maxConcurrent` run at a time, and `dispose` (the
 * conversation closing) kills every job's whole process tree.
 */
import type { Clock, ProcessRunner, RunningProcess } from '../ports';
import { OutputCollector } from '../text/terminal-output';

export type JobStatus = 'running' | 'exited' | 'timed_out' | 'cancelled';

export interface JobInfo {
  id: string;
  command: string;
  cwd?: string;
  status: JobStatus;
  /** Undefined while running, and when a signal ended the job. */
  exitCode: number | undefined;
  startedAt: number;
  finishedAt?: number;
  timeoutMs: number;
}

export interface JobSnapshot extends JobInfo {
  /** Output so far: escapes stripped, capped keeping the end. */
  output: string;
}

export interface BackgroundJobsOptions {
  runner: ProcessRunner;
  clock: Clock;
  /** Jobs running at once; one more is refused. Default 8. */
  maxConcurrent?: number;
  /** Default 30 min. */
  defaultTimeoutMs?: number;
  /** The most a call may ask for. Default 2 h. */
  maxTimeoutMs?: number;
  /** Output kept per job (the end). Default 20,000 characters. */
  maxOutputChars?: number;
  /** Output shown with a completion. Default 2,000 characters. */
  completionTailChars?: number;
  /** Finished jobs kept for check_background once reported. Default 50. */
  maxFinishedKept?: number;
  /** Every job that finishes on its own or times out (not cancelled): for a `background_result` event. */
  onComplete?: (job: JobSnapshot) => void;
}

/** A job that cannot start: too many running, or the conversation is closed. */
export class BackgroundJobError extends Error {}

interface Job {
  info: JobInfo;
  process: RunningProcess;
  output: OutputCollector;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Why it is being stopped, when we stop it. */
  stopping?: 'timed_out' | 'cancelled';
  /** The model has seen how it ended (completion drained, or checked after it finished). */
  reported: boolean;
  exited: Promise<void>;
}

const MINUTE = 60_000;
const DISPOSE_WAIT_MS = 5_000;

export class BackgroundJobs {
  readonly maxConcurrent: number;
  readonly defaultTimeoutMs: number;
  readonly maxTimeoutMs: number;
  private readonly jobs = new Map<string, Job>();
  /** Finished jobs whose completion the model has not seen, in the order they finished. */
  private readonly completed: Job[] = [];
  private nextId = 1;
  private disposed = false;

  constructor(private readonly options: BackgroundJobsOptions) {
    this.maxConcurrent = options.maxConcurrent ?? 8;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? 30 * MINUTE;
    this.maxTimeoutMs = options.maxTimeoutMs ?? 120 * MINUTE;
  }

  /** Starts a job and returns at once; throws BackgroundJobError when it may not start. */
  start(command: string, options: { cwd?: string; timeoutMs?: number; unconfined?: boolean } = {}): JobInfo {
    if (this.disposed) throw new BackgroundJobError('Background jobs are closed: the conversation has ended.');
    const running = this.list().filter((info) => info.status === 'running');
    if (running.length >= this.maxConcurrent) {
      throw new BackgroundJobError(
        `Too many background jobs: ${running.length} are running (the limit is ${this.maxConcurrent}): ` +
          `${running.map((info) => info.id).join(', ')}. Wait for one to finish before starting another.`,
      );
    }
    const timeoutMs = Math.max(1, Math.min(options.timeoutMs ?? this.defaultTimeoutMs, this.maxTimeoutMs));
    const info: JobInfo = {
      id: `bg-${this.nextId++}`,
      command,
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      status: 'running',
      exitCode: undefined,
      startedAt: this.options.clock.now(),
      timeoutMs,
    };
    const child = this.options.runner.start(command, {
      cwd: options.cwd,
      ...(options.unconfined ? { unconfined: true } : {}),
    });
    const output = new OutputCollector(this.options.maxOutputChars ?? 20_000);
    const job: Job = { info, process: child, output, timer: undefined, reported: false, exited: Promise.resolve() };
    this.jobs.set(info.id, job);
    child.onOutput((chunk) => output.push(chunk));
    job.timer = setTimeout(() => this.stop(job, 'timed_out'), timeoutMs);
    job.exited = new Promise((resolve) =>
      child.onExit((exitCode) => {
        this.finish(job, exitCode);
        resolve();
      }),
    );
    return { ...info };
  }

  /** A job with its output so far; a finished job counts as reported (its completion is not sent again). */
  check(id: string): JobSnapshot | undefined {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    if (job.info.status !== 'running') this.markReported(job);
    return { ...job.info, output: job.output.result() };
  }

  /** "running for 12 s", "exited with code 3 after 2 s", … by this conversation's clock. */
  describe(info: JobInfo): string {
    return statusText(info, this.options.clock.now());
  }

  /** Every job kept, oldest first. */
  list(): JobInfo[] {
    return [...this.jobs.values()].map((job) => ({ ...job.info }));
  }

  /** Stops a running job (no completion is reported for it); false if there is no such running job. */
  cancel(id: string): boolean {
    const job = this.jobs.get(id);
    if (!job || job.info.status !== 'running') return false;
    job.reported = true;
    this.stop(job, 'cancelled');
    return true;
  }

  /**
   * The completions of jobs that finished since the last call, each handed out once: the loop's
   * inbox drain (pass it as is; it is bound).
   */
  readonly drainCompleted = (): string[] => {
    const jobs = this.completed.splice(0);
    for (const job of jobs) job.reported = true;
    this.evict();
    return jobs.map((job) => this.completionMessage(job));
  };

  /** Kills every running job (whole process trees) and refuses new ones; resolves once they have ended. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.completed.length = 0;
    const running = [...this.jobs.values()].filter((job) => job.info.status === 'running');
    for (const job of running) {
      job.reported = true;
      this.stop(job, 'cancelled');
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const giveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, DISPOSE_WAIT_MS)));
    await Promise.race([Promise.all(running.map((job) => job.exited)), giveUp]);
    clearTimeout(timer);
  }

  private stop(job: Job, reason: 'timed_out' | 'cancelled'): void {
    if (job.info.status !== 'running' || job.stopping) return;
    job.stopping = reason;
    clearTimeout(job.timer);
    job.process.kill();
  }

  private finish(job: Job, exitCode: number | undefined): void {
    if (job.info.status !== 'running') return;
    clearTimeout(job.timer);
    job.info.status = job.stopping ?? 'exited';
    job.info.exitCode = exitCode;
    job.info.finishedAt = this.options.clock.now();
    if (!job.reported && !this.disposed) {
      this.completed.push(job);
      this.options.onComplete?.({ ...job.info, output: job.output.result() });
    }
    this.evict();
  }

  private markReported(job: Job): void {
    job.reported = true;
    const index = this.completed.indexOf(job);
    if (index >= 0) this.completed.splice(index, 1);
  }

  /** Forgets the oldest reported finished jobs beyond the number kept. */
  private evict(): void {
    const limit = this.options.maxFinishedKept ?? 50;
    const finished = [...this.jobs.values()].filter((job) => job.info.status !== 'running' && job.reported);
    for (const job of finished.slice(0, Math.max(0, finished.length - limit))) this.jobs.delete(job.info.id);
  }

  private completionMessage(job: Job): string {
    const tailChars = this.options.completionTailChars ?? 2_000;
    let output = job.output.result().trimEnd();
    if (output.length > tailChars) {
      output = `[… earlier output omitted; check_background ${job.info.id} shows more …]\n${output.slice(-tailChars)}`;
    }
    return (
      `[Background job ${job.info.id} ${statusText(job.info, this.options.clock.now())}: \`${job.info.command}\`]\n` +
      (output === '' ? '(no output)' : `Last output:\n${output}`)
    );
  }
}

/** "running for 12 s", "exited with code 3 after 2 s", "timed out after 30 min (stopped)", … */
export function statusText(info: JobInfo, now: number): string {
  const elapsed = formatDuration((info.finishedAt ?? now) - info.startedAt);
  switch (info.status) {
    case 'running':
      return `running for ${elapsed}`;
    case 'exited':
      return info.exitCode === undefined
        ? `ended without an exit code after ${elapsed}`
        : `exited with code ${info.exitCode} after ${elapsed}`;
    case 'timed_out':
      return `timed out after ${formatDuration(info.timeoutMs)} (stopped)`;
    case 'cancelled':
      return `was cancelled after ${elapsed}`;
  }
}

/** 850 ms → "less than 1 s", 75 s → "1 min 15 s", 2 h → "2 h". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return 'less than 1 s';
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 ? `${minutes} min ${seconds % 60} s` : `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
}
