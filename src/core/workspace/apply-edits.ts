/**
 * The heart of edit_file: several replacements applied in order, all or nothing. Each edit's
 * `oldText` is looked for by the matching ladder (edit-ladder.ts) and must be found at exactly
 * one place (or `replaceAll` is set); otherwise nothing changes and the reason shows the closest
 * real lines and what differs. Matching ignores the difference between `\n` and `\r\n`; the new
 * text takes the file's line endings, and every line the edits do not touch keeps its bytes.
 */
import { findEdit, LineIndex, type Replacement, type Rung } from './edit-ladder';
import { explainMiss } from './edit-refusal';

export interface TextEdit {
  oldText: string;
  newText: string;
  replaceAll?: boolean;
}

export type EditOutcome =
  | {
      ok: true;
      /** The new text in pieces, in order (a big file is not copied whole to change a line). */
      pieces: string[];
      replacements: number;
      /** How edits that did not match exactly were matched, for the model. */
      notes: string[];
      /**
       * How many of the new text's first lines still have the numbers read_file showed the model:
       * those above the first replacement that added or removed lines (lines between two such
       * replacements have moved even when the count comes out even).
       */
      knownLines: number;
    }
  | { ok: false; reason: string };

const RUNG_WORDS: Record<Rung, string> = {
  exact: '',
  'trailing-whitespace': ', ignoring trailing whitespace',
  indentation: ', ignoring indentation',
  'line-numbers': '',
};

export interface ApplyOptions {
  /**
   * How many of the original's first lines have the numbers read_file showed the model (see
   * read-versions.ts); an edit that quotes line-number prefixes past them is refused. Undefined:
   * all of them.
   */
  knownLines?: number;
}

export function applyEdits(
  original: string,
  lineEnding: '\n' | '\r\n',
  edits: readonly TextEdit[],
  options: ApplyOptions = {},
): EditOutcome {
  let text = original;
  let knownLines = options.knownLines ?? Infinity;
  let pending: Replacement[] | undefined;
  let replacements = 0;
  const notes: string[] = [];
  for (const [position, edit] of edits.entries()) {
    if (pending) text = splice(text, pending).join('');
    pending = undefined;
    const oldText = edit.oldText.replace(/\r\n/g, '\n');
    const newText = edit.newText.replace(/\r\n/g, '\n');
    const label = edits.length > 1 ? `Edit ${position + 1}: ` : '';
    if (oldText === '') return { ok: false, reason: `${label}oldText is empty; give the exact text to replace.` };
    if (oldText === newText) return { ok: false, reason: `${label}oldText and newText are the same.` };
    const index = new LineIndex(text);
    const found = findEdit(index, lineEnding, { oldText, newText, replaceAll: edit.replaceAll ?? false, knownLines });
    switch (found.kind) {
      case 'none':
        return { ok: false, reason: `${label}oldText was not found in the file. ${explainMiss(index, oldText)}` };
      case 'refused':
        return {
          ok: false,
          reason: `${label}${found.reason}${found.explain ? `\n${explainMiss(index, oldText)}` : ''}`,
        };
      case 'ambiguous': {
        const more = found.count > found.lines.length ? ', …' : '';
        return {
          ok: false,
          reason: `${label}oldText occurs ${found.count} times${RUNG_WORDS[found.rung]} (at lines ${found.lines.join(', ')}${more}); add surrounding lines to make it unique, or set replaceAll.`,
        };
      }
      case 'found':
        pending = found.replacements;
        // Lines below a replacement that adds or removes lines have moved since the model read them.
        for (const replacement of found.replacements)
          if (lineBreaks(text.slice(replacement.start, replacement.end)) !== lineBreaks(replacement.text))
            knownLines = Math.min(knownLines, index.lineOf(replacement.start) - 1);
        replacements += found.replacements.length;
        if (found.detail) notes.push(`${label}${found.detail}.`);
    }
  }
  return { ok: true, pieces: pending ? splice(text, pending) : [text], replacements, notes, knownLines };
}

function lineBreaks(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/** The text with replacements (in order, not overlapping) made, as pieces. */
function splice(text: string, replacements: readonly Replacement[]): string[] {
  const pieces: string[] = [];
  let at = 0;
  for (const replacement of replacements) {
    pieces.push(text.slice(at, replacement.start), replacement.text);
    at = replacement.end;
  }
  pieces.push(text.slice(at));
  return pieces;
}
