/**
 * The data of the edit review as events carry it (and the store keeps it): each hunk with the
 * lines it removed and added and the unchanged lines around it, enough to find it again in the
 * file and undo it — after a reload too, without the turn's checkpoint in memory.
 */
import { z } from 'zod';

export const hunkSchema = z.object({
  /** Where the hunk starts (0-based line) in the text before the turn. */
  beforeLine: z.number().int().nonnegative(),
  /** Where it starts in the text the turn left. */
  afterLine: z.number().int().nonnegative(),
  /** Lines as they were (without line breaks). */
  removed: z.array(z.string()),
  /** Lines the agent wrote instead. */
  added: z.array(z.string()),
  /** Unchanged lines just above and below it (at most 3 each; never another hunk's lines). */
  above: z.array(z.string()),
  below: z.array(z.string()),
  /** The lines above reach the top of the file / the lines below its end (no other hunk between). */
  atStart: z.boolean(),
  atEnd: z.boolean(),
});
export type Hunk = z.infer<typeof hunkSchema>;

export const reviewedFileSchema = z.object({
  /** Relative to the workspace folder, with "/". */
  path: z.string(),
  change: z.enum(['created', 'modified']),
  /** Absent when the file cannot be reviewed hunk by hunk (`unreviewable` says why). */
  hunks: z.array(hunkSchema).optional(),
  unreviewable: z.string().optional(),
});
export type ReviewedFile = z.infer<typeof reviewedFileSchema>;

export const reviewDecisionSchema = z.enum([
  'kept',
  'undone',
  /** An undone hunk is back as the agent wrote it (the user undid the undo with Ctrl+Z). */
  'reopened',
]);
export type ReviewDecision = z.infer<typeof reviewDecisionSchema>;
