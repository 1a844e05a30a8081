/**
 * The heart of edit_file: several exact-text replacements applied in order, all or nothing.
 * Each `oldText` must occur exactly once (or `replaceAll` is set); otherwise nothing changes
 * and the reason says how to fix the call. Matching ignores the file's line endings, and the
 * result keeps them.
 */
export interface TextEdit {
  oldText: string;
  newText: string;
  replaceAll?: boolean;
}

export type EditOutcome = { ok: true; text: string; replacements: number } | { ok: false; reason: string };

export function applyEdits(original: string, lineEnding: '\n' | '\r\n', edits: readonly TextEdit[]): EditOutcome {
  // Work in \n; put the file's own line endings back at the end.
  let text = lineEnding === '\r\n' ? original.replace(/\r\n/g, '\n') : original;
  let replacements = 0;
  for (const [index, edit] of edits.entries()) {
    const oldText = edit.oldText.replace(/\r\n/g, '\n');
    const newText = edit.newText.replace(/\r\n/g, '\n');
    const label = edits.length > 1 ? `Edit ${index + 1}: ` : '';
    if (oldText === '') return { ok: false, reason: `${label}oldText is empty; give the exact text to replace.` };
    if (oldText === newText) return { ok: false, reason: `${label}oldText and newText are the same.` };
    const first = text.indexOf(oldText);
    if (first < 0)
      return {
        ok: false,
        reason: `${label}oldText was not found in the file. Read the file again and copy the text exactly (whitespace included).`,
      };
    if (edit.replaceAll) {
      const parts = text.split(oldText);
      replacements += parts.length - 1;
      text = parts.join(newText);
      continue;
    }
    if (text.indexOf(oldText, first + oldText.length) >= 0) {
      const count = text.split(oldText).length - 1;
      return {
        ok: false,
        reason: `${label}oldText occurs ${count} times; add surrounding lines to make it unique, or set replaceAll.`,
      };
    }
    text = text.slice(0, first) + newText + text.slice(first + oldText.length);
    replacements++;
  }
  return { ok: true, text: lineEnding === '\r\n' ? text.replace(/\n/g, '\r\n') : text, replacements };
}
