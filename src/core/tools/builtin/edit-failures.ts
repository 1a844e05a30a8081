/**
 * Refused edits of one file in a row, per conversation: a model whose edit format keeps
 * failing (weaker local models often do) is pointed to write_file with the whole content,
 * which such models get right far more often. The approval shows the change as a diff either way.
 */

/** After this many refusals in a row for one file, the refusal suggests write_file. */
export const REFUSALS_BEFORE_WHOLE_FILE = 2;
/** Files up to this size are small enough to send whole. */
export const WHOLE_FILE_MAX_BYTES = 100 * 1024;
/** Conversations × files remembered; the oldest are forgotten first. */
const MAX_TRACKED = 500;

export class EditFailures {
  private readonly counts = new Map<string, number>();

  /** Counts a refusal of `key` (conversation and file); the hint to add to the refusal, or ''. */
  refused(key: string, fileBytes: number): string {
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.delete(key);
    this.counts.set(key, count);
    if (this.counts.size > MAX_TRACKED) this.counts.delete(this.counts.keys().next().value!);
    if (count < REFUSALS_BEFORE_WHOLE_FILE || fileBytes > WHOLE_FILE_MAX_BYTES) return '';
    return `\nThat is ${count} refused edits of this file in a row. If the next edit_file call would not match either, call write_file with the complete new content of the file instead (every line, nothing left out or abbreviated).`;
  }

  /** The file was written: its count starts again. */
  clear(key: string): void {
    this.counts.delete(key);
  }
}
