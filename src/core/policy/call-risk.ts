/**
 * One assessment per tool call, made before policy or anyone is asked (SPEC 4.1), from the
 * tool's traits (tool.ts), never from its name:
 * - what can never run is refused first (a file path outside the workspace), so nobody is asked
 *   to approve what would fail anyway;
 * - what must be asked whatever a rule, auto-approve or "Always" says, with the reasons shown
 *   in the question: a write to a protected path (decided on the real path, links followed), a
 *   read of a secret file, a write to the user's global memory, a command naming such paths or
 *   paths decided at run time, or using options known to run something else;
 * - what deserves a warning rather than a routine question, and what a confined command would
 *   need from outside its sandbox.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { SandboxStatus, WorkspaceFiles } from '../ports';
import type { AnyTool } from '../tools/tool';
import { assessCommand } from './command-risk';
import { isProtectedPath, isSecretPlace, pathOfInput } from './protected-paths';
import { analyseCommand } from './shell-command';
import { isInside, PathError, resolveWorkspacePath } from '../workspace/workspace-path';

export interface CallRisk {
  /** It can never run (a file outside the workspace): refused before anyone is asked. */
  refusal?: string;
  /** Why it is asked about whatever a rule, a switch or an earlier "Always" says. */
  reasons: string[];
  /** Shown with the question; any caution or reason makes it a warning, not a routine toast. */
  cautions: string[];
  /** It changes a protected path: the question is modal and "Always" never covers it. */
  protectedPath: boolean;
  /** What a confined command would need from outside its sandbox (writing the git repository). */
  needsOut: string[];
  /** The network it needs (asked where confined commands have none). */
  needsNetwork: string[];
  /** The shell command line the call runs, if any. */
  command?: string;
  /** The real path its file resolved to when checked: the tool writes there and nowhere else. */
  checkedPath?: string;
  /** The paths its command names, absolute, real and as written (for approver rules' `paths`). */
  namedPaths?: string[];
  /** Its command's path words decided only when it runs, as written (`$D/x`, `inf*`). */
  openPaths?: string[];
  /**
   * The real path of the secret file or folder the call names (and so asks about): once the
   * user approves this very call, the tool may show that content (ToolContext.approvedSecret).
   */
  secret?: string;
  /** A command that will run in the sandbox (unless the user lets it out). */
  confined?: boolean;
  /**
   * Put to a person every time (the tool's `asksEveryTime`, e.g. a plan): no rule, switch or
   * "Always" answers for them. Not a caution: the question stays a routine one.
   */
  inPerson?: string;
}

/** One place of the workspace's protected set: a real path, and why it is protected. */
export interface ProtectedPlace {
  absolute: string;
  kind: 'file' | 'folder';
  why: string;
}

export const NO_RISK: CallRisk = { reasons: [], cautions: [], protectedPath: false, needsOut: [], needsNetwork: [] };

/**
 * Whether a call is asked about whatever a rule, a switch or an earlier "Always" says — the one
 * decision behind "Always" offered or not, session rules, auto-approve, `--yes` and policy allows.
 */
export const mustAsk = (risk: CallRisk) =>
  risk.protectedPath || risk.reasons.length > 0 || risk.refusal !== undefined || risk.inPerson !== undefined;

/** What a tool's traits alone say about a call (`asksEveryTime`), over an assessed risk. */
export function withTraits(tool: AnyTool, input: unknown, risk: CallRisk): CallRisk {
  const inPerson = tool.traits?.asksEveryTime?.(input);
  return inPerson === undefined ? risk : { ...risk, inPerson };
}

/** Whether a call deserves a warning rather than a routine question. */
export const isWarning = (risk: CallRisk | undefined) =>
  risk !== undefined && (risk.protectedPath || risk.reasons.length > 0 || risk.cautions.length > 0);

/** Manifests whose scripts an allowed command would run: changed ones ask. */
const MANIFESTS = ['package.json', 'Makefile'];

export class CallAssessor {
  /** conversation id → manifest hashes when its first tool call was assessed. */
  private readonly baselines = new Map<string, Promise<Map<string, string | undefined>>>();

  constructor(
    private readonly workspace: () => WorkspaceFiles | undefined,
    /** Whether commands run confined now (undefined: no sandbox port, as on Windows hosts). */
    private readonly sandbox: () => SandboxStatus | undefined = () => undefined,
    /** The workspace's secret files, ignored ones included (relative paths). */
    private readonly secretFiles: (root: string) => Promise<readonly string[]> = async () => [],
    /**
     * The workspace's protected set on real paths, as the sandbox has it: what no name rule
     * sees (the git folder a `.git` file names, a hooks folder a config names).
     */
    private readonly protectedPaths: (root: string) => Promise<readonly ProtectedPlace[]> = async () => [],
  ) {}

  async assess(tool: AnyTool, input: unknown, conversationId: string): Promise<CallRisk> {
    const files = this.workspace();
    const baseline = files && this.baseline(conversationId, files);
    const traits = tool.traits;
    const risk: CallRisk = { reasons: [], cautions: [], protectedPath: false, needsOut: [], needsNetwork: [] };
    const shared = traits?.sharedWrite?.(input);
    if (shared) risk.reasons.push(shared);
    const inPerson = traits?.asksEveryTime?.(input);
    if (inPerson !== undefined) risk.inPerson = inPerson;
    const command = traits?.command?.(input);
    if (command !== undefined) {
      risk.command = command;
      const status = this.sandbox();
      await this.assessCommandLine(command, files, baseline, status?.confined === true, risk);
      this.applySandbox(status, risk);
    }
    const written = traits ? traits.path?.(input) : tool.readOnly ? undefined : pathOfInput(input);
    if (written !== undefined)
      await this.assessPath(written, traits ? traits.writes === true : true, !!traits, files, risk);
    return risk;
  }

  /**
   * In a sandbox, what the command needs from outside (the network) is a reason to ask, and a
   * command the user approves for a reason runs outside it; `sandbox: required` without one
   * refuses every command before anyone is asked.
   */
  private applySandbox(status: SandboxStatus | undefined, risk: CallRisk): void {
    if (!status) return;
    if (status.refusal !== undefined) {
      risk.refusal = status.refusal;
      return;
    }
    if (!status.confined) return;
    risk.confined = true;
    const needs = [...(status.network ? [] : risk.needsNetwork), ...risk.needsOut];
    for (const need of needs) risk.reasons.push(`${need}, which confined commands cannot`);
    if (risk.reasons.length === 0) return;
    // `required`: nothing ever runs outside; approved, it runs confined (and may fail).
    risk.cautions.push(
      status.mode === 'required'
        ? 'it runs inside the sandbox even if you approve (sandbox: required)'
        : 'if you approve, it runs outside the sandbox',
    );
  }

  private async assessPath(
    written: string,
    writes: boolean,
    declared: boolean,
    files: WorkspaceFiles | undefined,
    risk: CallRisk,
  ): Promise<void> {
    const relatives = [written];
    let real: string | undefined;
    if (files && declared) {
      try {
        real = await resolveWorkspacePath(files.root, written, files);
        if (writes) risk.checkedPath = real;
        const realRoot = (await files.realpath(files.root)) ?? files.root;
        relatives.push(path.relative(realRoot, real) || '.');
      } catch (error) {
        if (!(error instanceof PathError)) throw error;
        risk.refusal = error.message;
        return;
      }
    }
    const shown = (relative: string) => (relative === written ? '' : ` (it leads to ${relative})`);
    const protectedOne = relatives.find((relative) => isProtectedPath(relative));
    if (writes && protectedOne !== undefined) {
      risk.protectedPath = true;
      risk.reasons.push(`${written} is a protected path${shown(protectedOne)}`);
    } else if (writes && files && risk.checkedPath !== undefined) {
      const real = risk.checkedPath;
      const place = (await this.protectedPaths(files.root)).find(
        (entry) => real === entry.absolute || (entry.kind === 'folder' && isInside(entry.absolute, real)),
      );
      if (place) {
        risk.protectedPath = true;
        risk.reasons.push(`${written} is a protected path (it is in ${place.why})`);
      }
    }
    // A secret asks for reads and writes alike: an edit reads the file (and may quote it back).
    const secret = relatives.find((relative) => isSecretPlace(relative));
    // Or it is the secret under another name: a hard link to `.env` called `notes.txt`.
    const twin = secret === undefined && real !== undefined ? await files?.linkedSecret(real) : undefined;
    if (secret !== undefined) risk.reasons.push(`${written} holds secrets${shown(secret)}`);
    else if (twin !== undefined) risk.reasons.push(`${written} holds secrets (it is a hard link to ${twin})`);
    if ((secret ?? twin) !== undefined && real !== undefined) risk.secret = real;
  }

  private async assessCommandLine(
    command: string,
    files: WorkspaceFiles | undefined,
    baseline: Promise<Map<string, string | undefined>> | undefined,
    confined: boolean,
    risk: CallRisk,
  ): Promise<void> {
    const analysis = analyseCommand(command);
    if (!analysis.ok) {
      risk.reasons.push(analysis.reason);
      return;
    }
    if (analysis.hidden) risk.reasons.push('it holds control or invisible characters that can hide what runs');
    if (!files) return;
    const root = (await files.realpath(files.root)) ?? files.root;
    const findings = await assessCommand(analysis, {
      root,
      files,
      confined,
      secretFiles: () => this.secretFiles(root),
      changedManifests: async () => {
        const before = await baseline;
        if (!before) return [];
        const now = await manifestHashes(files);
        return MANIFESTS.filter((name) => before.get(name) !== now.get(name));
      },
    });
    risk.reasons.push(...findings.reasons);
    risk.cautions.push(...findings.cautions);
    risk.needsOut.push(...findings.needsOut);
    risk.needsNetwork.push(...findings.needsNetwork);
    risk.protectedPath ||= findings.protectedPath;
    if (findings.paths.length) risk.namedPaths = findings.paths;
    if (findings.openPaths.length) risk.openPaths = findings.openPaths;
  }

  private baseline(conversationId: string, files: WorkspaceFiles): Promise<Map<string, string | undefined>> {
    let baseline = this.baselines.get(conversationId);
    if (!baseline) {
      baseline = manifestHashes(files);
      this.baselines.set(conversationId, baseline);
    }
    return baseline;
  }
}

async function manifestHashes(files: WorkspaceFiles): Promise<Map<string, string | undefined>> {
  const hashes = new Map<string, string | undefined>();
  for (const name of MANIFESTS) {
    // Read at its real path (a manifest may be a link inside the workspace): reads take paths as checked.
    const absolute = await files.realpath(path.join(files.root, name)).catch(() => undefined);
    const text = absolute
      ? await files.readText(absolute).then(
          (decoded) => decoded.text,
          () => undefined,
        )
      : undefined;
    hashes.set(name, text === undefined ? undefined : createHash('sha256').update(text).digest('hex'));
  }
  return hashes;
}

/** The paths the assessment found the call to name (real ones too), as policy rules see them. */
export function calledPaths(risk: CallRisk): { paths?: string[]; openPaths?: string[] } {
  const paths = [...(risk.checkedPath !== undefined ? [risk.checkedPath] : []), ...(risk.namedPaths ?? [])];
  return {
    ...(paths.length ? { paths } : {}),
    ...(risk.openPaths?.length ? { openPaths: risk.openPaths } : {}),
  };
}
