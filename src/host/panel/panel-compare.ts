/**
 * The developer panel's Compare tab, host side (SPEC: replay and compare): the recorded
 * conversations its two pickers offer, two of them compared (compareRuns, core) and posted as a
 * bounded view, and "Re-run from here with…" on a step of either. The webview is untrusted: a
 * conversation is compared only when it is one the host listed, a re-run only from a run on
 * screen and a step that run has. No `vscode` import: unit-tested in Node with fakes.
 */
import { compareRuns } from '../../core/replay/compare-runs';
import type { Divergence } from '../../core/replay/divergence';
import type { LoadedRecording } from '../../core/replay/loaded-recording';
import { MAX_COMPARE_CHOICES, type CompareChoice, type HostToPanel } from '../../protocol/messages';
import { compareViewMessage, oneLine } from './compare-view';

/** Where the Compare tab reads recorded runs (the store), and how a re-run is started (the editor). */
export interface CompareSource {
  /** The conversations to offer, newest first, each saying whether it has a recording. */
  choices(): Promise<CompareChoice[]>;
  /** A conversation's recording; rejects (a RecordingProblem) when it has none or it is damaged. */
  load(conversationId: string): Promise<LoadedRecording>;
  /**
   * Asks what to change and re-runs `loaded` from `step` (rerunFrom, core); resolves with the new
   * conversation's id, or undefined when the user let it be. Absent: re-runs are not offered.
   */
  rerun?(loaded: LoadedRecording, step: number): Promise<string | undefined>;
}

type Post = (message: HostToPanel) => void;

export class PanelCompare {
  /** The two runs on screen (A, B), for "Re-run from here" (only those may be re-run). */
  private shown: { a: string; b: string } | undefined;
  private choicesCache: CompareChoice[] = [];
  private rerunning = false;
  /** Re-runs made here: recorded, though the store lists no conversation for them. */
  private readonly made = new Map<string, { title: string; createdAt: number }>();

  constructor(
    private readonly source: CompareSource | undefined,
    private readonly post: Post,
    /** When a re-run was made (for its row in the pickers). */
    private readonly now: () => number = Date.now,
  ) {}

  /** The pickers' list again; with both ids (each one the host listed), their comparison. */
  async request(a?: string, b?: string): Promise<void> {
    if (!this.source) {
      this.notice('info', 'Recorded runs are not available in this window (no store is open).');
      return;
    }
    const choices = await this.refreshChoices();
    if (a === undefined || b === undefined) return;
    const problem = this.unlisted(a, choices) ?? this.unlisted(b, choices);
    if (problem) {
      this.notice('warning', problem);
      return;
    }
    await this.compare(a, b);
  }

  /** Compares two conversations (a replay's original with itself, a re-run's original with the re-run). */
  async compare(a: string, b: string, replay?: { reproduced: boolean; divergence?: Divergence }): Promise<boolean> {
    if (!this.source) return false;
    try {
      const [left, right] = await Promise.all([this.source.load(a), this.source.load(b)]);
      const titles = new Map(this.choicesCache.map((choice) => [choice.id, choice.title]));
      this.post(
        compareViewMessage(compareRuns(left, right), {
          titles: { a: titles.get(a), b: titles.get(b) },
          ...(replay ? { replay } : {}),
        }),
      );
      this.shown = { a, b };
      return true;
    } catch (error) {
      this.notice('warning', `Cannot compare these runs: ${messageOf(error)}`);
      return false;
    }
  }

  /** "Re-run from here with…" on step `step` of a run on screen. */
  async rerun(conversationId: string, step: number): Promise<void> {
    const source = this.source;
    if (!source?.rerun) {
      this.notice('info', 'Re-running is not available in this window.');
      return;
    }
    if (!this.shown || (conversationId !== this.shown.a && conversationId !== this.shown.b)) {
      this.notice('warning', 'That run is not the one compared here any more: choose it again.');
      return;
    }
    if (this.rerunning) {
      this.notice('info', 'A re-run is already going: wait for it to end.');
      return;
    }
    this.rerunning = true;
    try {
      const loaded = await source.load(conversationId);
      if (!Number.isSafeInteger(step) || step < 1 || step > loaded.lastStep) {
        this.notice(
          'warning',
          `Step ${String(step).slice(0, 24)} is out of range: this recording has steps 1 to ${loaded.lastStep}.`,
        );
        return;
      }
      const made = await source.rerun(loaded, step);
      if (made === undefined) return;
      this.made.set(made, { title: `Re-run of step ${step}`, createdAt: this.now() });
      await this.refreshChoices();
      if (await this.compare(conversationId, made))
        this.notice('info', `Re-ran from step ${step}: the original (A) against the re-run (B).`);
    } catch (error) {
      this.notice('warning', `The re-run did not start: ${messageOf(error)}`);
    } finally {
      this.rerunning = false;
    }
  }

  private async refreshChoices(): Promise<CompareChoice[]> {
    const listed = await (this.source?.choices() ?? Promise.resolve([])).catch(() => []);
    const rerunsMade = [...this.made]
      .filter(([id]) => !listed.some((choice) => choice.id === id))
      .map(([id, made]) => ({ id, ...made, recorded: true }));
    const choices = [...rerunsMade.reverse(), ...listed].slice(0, MAX_COMPARE_CHOICES).map((choice) => ({
      id: choice.id.slice(0, 200),
      title: oneLine(choice.title) || 'Untitled',
      createdAt: Number.isFinite(choice.createdAt) ? choice.createdAt : 0,
      recorded: choice.recorded,
    }));
    this.choicesCache = choices;
    this.post({ type: 'compare_choices', choices });
    return choices;
  }

  private unlisted(id: string, choices: readonly CompareChoice[]): string | undefined {
    const choice = choices.find((candidate) => candidate.id === id);
    if (!choice) return 'That conversation is not among the recorded ones any more: the list was refreshed.';
    if (!choice.recorded)
      return `“${choice.title}” has no recording: it ran before recording existed, or recording was off.`;
    return undefined;
  }

  private notice(level: 'info' | 'warning', text: string): void {
    this.post({ type: 'compare_notice', level, text: oneLongLine(text) });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A notice of at most 2,000 characters, control characters as spaces. */
function oneLongLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.slice(0, 4_000).replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, ' ');
  return flat.length > 2_000 ? `${flat.slice(0, 1_999)}…` : flat;
}
