/**
 * Indentation for the ladder's "ignoring indentation" rung: whether the model's old text has the
 * same structure as the lines it matched (only the amount or kind of indentation differs), and
 * the model's new text re-indented to the file's own style — tabs or spaces, the file's width —
 * keeping each line's indentation relative to its neighbours.
 */

/** Columns a tab counts for when indentation widths are compared. */
const TAB_COLUMNS = 4;

export function leadingWhitespace(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

function columns(indent: string): number {
  let width = 0;
  for (const character of indent) width += character === '\t' ? TAB_COLUMNS : 1;
  return width;
}

function greatestCommonDivisor(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** The step between indentation levels in a set of widths (0 when every width is the same). */
function step(widths: Iterable<number>): number {
  const sorted = [...new Set(widths)].sort((a, b) => a - b);
  let unit = 0;
  for (let index = 1; index < sorted.length; index++)
    unit = greatestCommonDivisor(unit, sorted[index]! - sorted[index - 1]!);
  return unit;
}

/** The file's indentation unit, from its first indented lines: a tab, or N spaces. */
export function fileIndentUnit(lines: readonly string[], fallbackSpaces: number): string {
  let tabs = 0;
  const spaceWidths: number[] = [];
  for (let index = 0; index < lines.length && index < 5_000; index++) {
    const indent = leadingWhitespace(lines[index]!);
    if (indent === '' || indent.length === lines[index]!.length) continue;
    if (indent.startsWith('\t')) tabs++;
    else spaceWidths.push(indent.length);
  }
  if (tabs > spaceWidths.length) return '\t';
  const unit = spaceWidths.reduce(greatestCommonDivisor, 0);
  return ' '.repeat(unit >= 2 && unit <= 8 ? unit : fallbackSpaces || 4);
}

export interface Reindented {
  lines: string[];
  /** The file's style in words, for the tool result ("tabs", "2 spaces"). */
  style: string;
}

/**
 * Maps the old text's indentation onto the matched file lines and re-indents the new text.
 * Undefined when the structures differ: the old text nests lines the file does not (or the
 * other way round), so there is no telling what the new text's indentation should become.
 * The first old line may lack indentation its file line has (a copy that began at the first
 * visible character); it then only anchors new lines indented like it.
 */
export function reindent(
  oldLines: readonly string[],
  fileLines: readonly string[],
  newLines: readonly string[],
  wholeFile: readonly string[],
): Reindented | undefined {
  const known = new Map<number, string>();
  let anchored: { oldIndent: string; fileIndent: string } | undefined;
  const pairs: Array<[number, string]> = [];
  for (const [index, line] of oldLines.entries()) {
    if (line.trim() === '') continue;
    const oldIndent = leadingWhitespace(line);
    const fileIndent = leadingWhitespace(fileLines[index]!);
    if (index === 0 && oldIndent === '' && fileIndent !== '' && oldLines.length > 1) {
      anchored = { oldIndent, fileIndent };
      continue;
    }
    pairs.push([columns(oldIndent), fileIndent]);
  }
  for (const [oldWidth, fileIndent] of pairs) {
    const seen = known.get(oldWidth);
    if (seen !== undefined && seen !== fileIndent) return undefined;
    known.set(oldWidth, fileIndent);
  }
  // Deeper in the old text must be deeper in the file, level for level.
  const ordered = [...known].sort((a, b) => a[0] - b[0]);
  for (let index = 1; index < ordered.length; index++)
    if (columns(ordered[index]![1]) <= columns(ordered[index - 1]![1])) return undefined;
  // The anchored first line fits the structure when its file indentation is already known.
  if (anchored && ordered.length > 0 && ![...known.values()].includes(anchored.fileIndent)) {
    const fileWidths = ordered.map(([, indent]) => columns(indent));
    if (columns(anchored.fileIndent) > Math.max(...fileWidths)) return undefined;
  }

  const newWidths = newLines.filter((line) => line.trim() !== '').map((line) => columns(leadingWhitespace(line)));
  const oldUnit = step([...known.keys(), ...newWidths]) || 4;
  const regionUnit = regionIndentUnit(ordered.map(([, indent]) => indent));
  const fileUnit = regionUnit ?? fileIndentUnit(wholeFile, oldUnit);

  const lines = newLines.map((line, index) => {
    if (line.trim() === '') return '';
    const indent = leadingWhitespace(line);
    const body = line.slice(indent.length);
    if (anchored && index === 0 && indent === anchored.oldIndent) return anchored.fileIndent + body;
    const width = columns(indent);
    const exact = known.get(width);
    if (exact !== undefined) return exact + body;
    if (ordered.length === 0) {
      // Only the anchored line was indented: new lines nest from it.
      const base = anchored?.fileIndent ?? '';
      return base + fileUnit.repeat(Math.round(width / oldUnit)) + body;
    }
    const below = [...ordered].reverse().find(([known]) => known < width);
    if (below) return below[1] + fileUnit.repeat(Math.max(1, Math.round((width - below[0]) / oldUnit))) + body;
    // Shallower than anything the old text showed: take levels off the shallowest.
    const [shallowWidth, shallowIndent] = ordered[0]!;
    const levels = Math.max(1, Math.round((shallowWidth - width) / oldUnit));
    return removeLevels(shallowIndent, fileUnit, levels) + body;
  });
  return { lines, style: fileUnit === '\t' ? 'tabs' : `${fileUnit.length} spaces` };
}

/** The unit the matched lines themselves show, when they show one. */
function regionIndentUnit(indents: readonly string[]): string | undefined {
  if (indents.some((indent) => indent.includes('\t'))) return '\t';
  const unit = step(indents.map((indent) => indent.length));
  return unit > 0 ? ' '.repeat(unit) : undefined;
}

function removeLevels(indent: string, unit: string, levels: number): string {
  let result = indent;
  for (let level = 0; level < levels && result.endsWith(unit); level++) result = result.slice(0, -unit.length);
  return result;
}
