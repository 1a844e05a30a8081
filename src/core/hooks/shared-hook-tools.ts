/**
 * Our tools under the names and input shapes hooks written for Claude Code expect, and back:
 * one table. A hook sees `Bash` with `{ command }`, `Edit` with `{ file_path, old_string,
 * new_string }` (absolute paths, as Claude Code gives them); what it hands back as
 * `updatedInput` is turned into our tool's input again. MCP tools are `mcp__server__tool` in
 * both. Tools without a counterpart keep our name and input.
 *
 * Matchers: `*` or '' match every tool; otherwise `|`-separated names, each a tool name where
 * `*` (or `.*`) stands for any run of characters, matched against the whole name — ours or the
 * hook format's. Full regular expressions are not run (a pattern like `(a+)+$` could hang the
 * agent): a matcher using more than that is reported and its hooks do not run.
 */
import * as path from 'node:path';

type Input = Record<string, unknown>;

interface ToolMapping {
  ours: string;
  /** The name the hook sees for this input. */
  theirs: (input: Input) => string;
  /** Every name of theirs a matcher may use for this tool. */
  names: readonly string[];
  toTheirs: (input: Input, root: string) => Input;
  toOurs: (updated: Input, root: string) => Input;
}

const absolute = (file: unknown, root: string) =>
  typeof file === 'string' && !path.isAbsolute(file) ? path.join(root, file) : file;

/** A path the hook gave: inside the workspace it becomes relative again; elsewhere it stays (and is refused later). */
const relative = (file: unknown, root: string) => {
  if (typeof file !== 'string' || !path.isAbsolute(file)) return file;
  const inside = path.relative(root, file);
  return inside.startsWith('..') || path.isAbsolute(inside) ? file : inside || '.';
};

const defined = (input: Input): Input =>
  Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));

/** Our bash input as Claude Code's Bash takes it (timeout in milliseconds). */
function bashInput(input: Record<string, unknown>): Record<string, unknown> {
  return defined({
    command: input.command,
    timeout: typeof input.timeoutSeconds === 'number' ? input.timeoutSeconds * 1000 : undefined,
  });
}

/** A hook's Bash input back as ours (timeout in seconds), for bash and background_run alike. */
function commandInput(updated: Record<string, unknown>): Record<string, unknown> {
  return defined({
    command: updated.command,
    timeoutSeconds: typeof updated.timeout === 'number' ? Math.ceil(updated.timeout / 1000) : undefined,
  });
}

export const TOOL_MAPPINGS: readonly ToolMapping[] = [
  {
    ours: 'bash',
    theirs: () => 'Bash',
    names: ['Bash'],
    toTheirs: (input) => bashInput(input),
    toOurs: (updated) => commandInput(updated),
  },
  {
    // A command started in the background is still a command: Claude Code's Bash with
    // `run_in_background`, so a hook guarding Bash guards it too.
    ours: 'background_run',
    theirs: () => 'Bash',
    names: ['Bash'],
    toTheirs: (input) => ({ ...bashInput(input), run_in_background: true }),
    toOurs: (updated) => commandInput(updated),
  },
  {
    ours: 'read_file',
    theirs: () => 'Read',
    names: ['Read'],
    toTheirs: (input, root) =>
      defined({ file_path: absolute(input.path, root), offset: input.offset, limit: input.limit }),
    toOurs: (updated, root) =>
      defined({ path: relative(updated.file_path, root), offset: updated.offset, limit: updated.limit }),
  },
  {
    ours: 'write_file',
    theirs: () => 'Write',
    names: ['Write'],
    toTheirs: (input, root) => ({ file_path: absolute(input.path, root), content: input.content }),
    toOurs: (updated, root) => ({ path: relative(updated.file_path, root), content: updated.content }),
  },
  {
    ours: 'edit_file',
    // One edit is Claude Code's Edit; several are its MultiEdit.
    theirs: (input) => (Array.isArray(input.edits) && input.edits.length === 1 ? 'Edit' : 'MultiEdit'),
    names: ['Edit', 'MultiEdit'],
    toTheirs: (input, root) => {
      const edits = (Array.isArray(input.edits) ? input.edits : []).map((edit: Input) =>
        defined({ old_string: edit.oldText, new_string: edit.newText, replace_all: edit.replaceAll }),
      );
      const file_path = absolute(input.path, root);
      return edits.length === 1 ? { file_path, ...edits[0] } : { file_path, edits };
    },
    toOurs: (updated, root) => {
      const edits = Array.isArray(updated.edits) ? (updated.edits as Input[]) : [updated];
      return {
        path: relative(updated.file_path, root),
        edits: edits.map((edit) =>
          defined({ oldText: edit.old_string, newText: edit.new_string, replaceAll: edit.replace_all }),
        ),
      };
    },
  },
  {
    ours: 'search_files',
    theirs: () => 'Grep',
    names: ['Grep'],
    toTheirs: (input, root) =>
      defined({
        pattern: input.pattern,
        path: absolute(input.path, root),
        glob: input.glob,
        '-i': input.caseSensitive === false ? true : undefined,
      }),
    toOurs: (updated, root) =>
      defined({
        pattern: updated.pattern,
        path: relative(updated.path, root),
        glob: updated.glob,
        caseSensitive: updated['-i'] === true ? false : undefined,
      }),
  },
  {
    ours: 'glob',
    theirs: () => 'Glob',
    names: ['Glob'],
    toTheirs: (input, root) => defined({ pattern: input.pattern, path: absolute(input.path, root) }),
    toOurs: (updated, root) => defined({ pattern: updated.pattern, path: relative(updated.path, root) }),
  },
  {
    ours: 'list_files',
    theirs: () => 'LS',
    names: ['LS'],
    toTheirs: (input, root) => defined({ path: absolute(input.path, root) }),
    toOurs: (updated, root) => defined({ path: relative(updated.path, root) }),
  },
];

const BY_OURS = new Map(TOOL_MAPPINGS.map((mapping) => [mapping.ours, mapping]));

/** The call as the hook format has it: its name and input (ours where nothing maps). */
export function callForHook(toolName: string, input: unknown, root: string): { name: string; input: unknown } {
  const mapping = BY_OURS.get(toolName);
  if (!mapping || !isInput(input)) return { name: toolName, input };
  return { name: mapping.theirs(input), input: mapping.toTheirs(input, root) };
}

/**
 * A hook's `updatedInput` as our tool's input: merged over what the hook was given (a hook may
 * send only what it changes), then mapped back. The tool's schema checks the result later.
 */
export function inputFromHook(toolName: string, given: unknown, updated: Input, root: string): unknown {
  const merged = isInput(given) ? { ...given, ...updated } : updated;
  const mapping = BY_OURS.get(toolName);
  return mapping ? mapping.toOurs(merged, root) : merged;
}

/** Every name a matcher may use for this call: ours, and the hook format's. */
export function namesForMatching(toolName: string): string[] {
  return [toolName, ...(BY_OURS.get(toolName)?.names ?? [])];
}

const MAX_MATCHER_CHARS = 500;
const ALTERNATIVE = /^[A-Za-z0-9_\-*?]*$/;

/** Why a matcher cannot be used, or undefined when it can. */
export function matcherProblem(matcher: string): string | undefined {
  if (matcher.length > MAX_MATCHER_CHARS) return `is longer than ${MAX_MATCHER_CHARS} characters`;
  for (const alternative of alternatives(matcher))
    if (!ALTERNATIVE.test(alternative))
      return 'is a regular expression OpenAgent does not run (use tool names, | and .*)';
  return undefined;
}

/** Whether a matcher (checked by matcherProblem) applies to any of these names. */
export function matcherMatches(matcher: string, names: readonly string[]): boolean {
  if (matcherProblem(matcher) !== undefined) return false;
  const wanted = alternatives(matcher);
  if (wanted.length === 0 || wanted.includes('*')) return true;
  return wanted.some((pattern) => names.some((name) => globMatches(pattern, name)));
}

/** `^(Edit|Write)$` → ['Edit', 'Write']; `.*` is `*`, a lone `.` any one character (`?`). */
function alternatives(matcher: string): string[] {
  let text = matcher.trim();
  if (text.startsWith('^')) text = text.slice(1);
  if (text.endsWith('$')) text = text.slice(0, -1);
  if (text.startsWith('(') && text.endsWith(')') && !text.slice(1, -1).includes('(')) text = text.slice(1, -1);
  if (text === '') return [];
  return text.split('|').map((part) => part.replace(/\.\*/g, '*').replace(/\./g, '?'));
}

/** Glob with `*` and `?`, whole string, without backtracking blow-up (at most pattern × name steps). */
function globMatches(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (p < pattern.length && (pattern[p] === '?' || pattern[p] === name[n])) {
      p++;
      n++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resume = n;
    } else if (star >= 0) {
      p = star + 1;
      n = ++resume;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

function isInput(value: unknown): value is Input {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
