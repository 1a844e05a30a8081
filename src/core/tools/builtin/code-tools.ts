/**
 * Finding things in code: search_files (ripgrep) and, where the host has language features,
 * get_diagnostics, find_symbol, find_references and go_to_definition. All read-only. Places are
 * given to the model as `path:line:column` relative to the workspace, with the line's text, and
 * a position is asked for as a line plus the symbol's name on it (models count columns badly).
 */
import * as path from 'node:path';
import { z } from 'zod';
import type { CodeLocation, CodeNavigation, TextSearch, WorkspaceFiles } from '../../ports';
import { SecretReads, SECRETS_LEFT_OUT, secretRefusal } from '../../policy/secret-reads';
import { resolveWorkspacePath } from '../../workspace/workspace-path';
import { defineTool, type AnyTool } from '../tool';

const MAX_SEARCH_MATCHES = 200;
const MAX_LOCATIONS = 100;
const MAX_LINE_CHARS = 300;

export function createSearchTool(search: TextSearch, workspace: WorkspaceFiles): AnyTool {
  return defineTool({
    name: 'search_files',
    description:
      'Search file contents with ripgrep (a regular expression unless literal; .gitignore respected). Returns ' +
      'path:line:column and the matching line. Secret files (.env*, keys, credential files) are never searched; ' +
      'read_file one to see it (that asks the user).',
    inputSchema: z.object({
      pattern: z.string().min(1).max(1_000),
      path: z.string().default('.').describe('Folder or file to search, relative to the workspace root.'),
      glob: z.string().max(200).optional().describe('Only files matching this glob, e.g. "*.ts" or "src/**/*.py".'),
      literal: z.boolean().default(false),
      caseSensitive: z.boolean().default(false),
      maxResults: z.number().int().min(1).max(MAX_SEARCH_MATCHES).default(50),
    }),
    readOnly: true,
    needsApproval: false,
    // Searching in a secret file or folder (`.env`, `.ssh`, a link to either) asks, as a read does.
    traits: { path: (input) => input.path },
    summarize: (input) => `Search for ${JSON.stringify(input.pattern)}`,
    async execute(input, context) {
      const within = await resolveWorkspacePath(workspace.root, input.path, workspace);
      if (!(await workspace.stat(within))) return { output: `${input.path} does not exist.`, isError: true };
      const secrets = await SecretReads.of(workspace, context.approvedSecret);
      if (await secrets.hides(within)) return { output: secretRefusal(input.path), isError: true };
      // Secret files are dropped before they count, so neither the lines nor whether (or how
      // often) a secret matched can be learned, pattern by pattern, from what comes back.
      const result = await search.search({
        pattern: input.pattern,
        literal: input.literal,
        caseSensitive: input.caseSensitive,
        within,
        glob: input.glob,
        maxMatches: input.maxResults,
        // By name, real path and hard link alike: a match in `notes.txt` linked to `.env` does not count either.
        skip: (file) => secrets.hides(file),
        signal: context.signal,
      });
      // Judged once per file above; a TextSearch that ignored `skip` still shows nothing of a secret.
      const { shown } = await secrets.filter(result.matches);
      if (shown.length === 0)
        return `No matches for ${JSON.stringify(input.pattern)} in ${input.path}. ${SECRETS_LEFT_OUT}`;
      const lines = shown.map((match) => `${place(workspace.root, match)}: ${clip(match.text)}`);
      if (result.truncated) lines.push(`[more matches not shown: narrow the pattern, path or glob]`);
      return lines.join('\n');
    },
  });
}

export function createNavigationTools(navigation: CodeNavigation, workspace: WorkspaceFiles): AnyTool[] {
  const resolve = (input: string) => resolveWorkspacePath(workspace.root, input, workspace);

  const positionSchema = z.object({
    path: z.string().describe('File relative to the workspace root.'),
    line: z.number().int().min(1).describe('1-based line the symbol is on.'),
    symbol: z.string().min(1).max(200).describe('The name as written on that line (its first occurrence is used).'),
  });

  /** Turns path + line + symbol name into an exact position, or says why it cannot. */
  async function locate(input: z.infer<typeof positionSchema>, secrets: SecretReads): Promise<CodeLocation | string> {
    const absolute = await resolve(input.path);
    if ((await workspace.stat(absolute))?.type !== 'file') return `${input.path} is not a file.`;
    if (await secrets.hides(absolute)) return secretRefusal(input.path);
    const text = await new LineReader(workspace).line(absolute, input.line);
    if (text === undefined) return `${input.path} has no line ${input.line}.`;
    const column = findWord(text, input.symbol);
    if (column === undefined) return `\`${input.symbol}\` is not on line ${input.line} of ${input.path}: ${clip(text)}`;
    return { path: absolute, line: input.line, column };
  }

  async function describe(locations: CodeLocation[], what: string, secrets: SecretReads): Promise<string> {
    if (locations.length === 0) return `No ${what} found.`;
    const shown = locations.slice(0, MAX_LOCATIONS);
    const lines = new LineReader(workspace);
    const rendered = await Promise.all(
      shown.map(async (location) => {
        // A place in a secret file is named, but its line is not shown.
        if (await secrets.hides(location.path)) return `${place(workspace.root, location)} (a secret file: not shown)`;
        const text = isInside(workspace.root, location.path)
          ? await lines.line(location.path, location.line)
          : undefined;
        return `${place(workspace.root, location)}${text === undefined ? '' : `: ${clip(text)}`}`;
      }),
    );
    const more = locations.length > shown.length ? `\n[${locations.length - shown.length} more not shown]` : '';
    return `${locations.length} ${what}:\n${rendered.join('\n')}${more}`;
  }

  const getDiagnostics = defineTool({
    name: 'get_diagnostics',
    description:
      "Errors and warnings the editor's language services report (type errors, lint problems) for one file, or for the workspace when no path is given.",
    inputSchema: z.object({ path: z.string().optional() }),
    readOnly: true,
    needsApproval: false,
    // A problem's message can quote its line: the problems of a secret file ask, as reading it does.
    traits: { path: (input) => input.path },
    summarize: (input) => `Check problems${input.path ? ` in ${input.path}` : ''}`,
    async execute(input, context) {
      const absolute = input.path === undefined ? undefined : await resolve(input.path);
      if (absolute && !(await workspace.stat(absolute)))
        return { output: `${input.path} does not exist.`, isError: true };
      const secrets = await SecretReads.of(workspace, context.approvedSecret);
      const reported = (await navigation.diagnostics(absolute)).filter((item) => isInside(workspace.root, item.path));
      const { shown: found, leftOut } = await secrets.filter(reported);
      const note = leftOut > 0 ? `\n[Problems in secret files are not shown. ${SECRETS_LEFT_OUT}]` : '';
      if (found.length === 0) return `No problems reported${input.path ? ` in ${input.path}` : ''}.${note}`;
      const order = { error: 0, warning: 1, info: 2, hint: 3 };
      found.sort((a, b) => order[a.severity] - order[b.severity] || a.path.localeCompare(b.path) || a.line - b.line);
      const shown = found
        .slice(0, MAX_LOCATIONS)
        .map(
          (item) =>
            `${place(workspace.root, item)} ${item.severity}${item.source ? ` (${item.source})` : ''}: ${clip(item.message)}`,
        );
      const more = found.length > shown.length ? `\n[${found.length - shown.length} more not shown]` : '';
      return shown.join('\n') + more + note;
    },
  });

  const findSymbol = defineTool({
    name: 'find_symbol',
    description:
      'Find where functions, classes, methods, variables etc. are declared across the workspace, by name (language-aware, not text search).',
    inputSchema: z.object({ name: z.string().min(1).max(200) }),
    readOnly: true,
    needsApproval: false,
    summarize: (input) => `Find symbol ${input.name}`,
    async execute(input, context) {
      const secrets = await SecretReads.of(workspace, context.approvedSecret);
      // A secret file's "symbols" are its keys, and some language services name them by their values.
      const { shown: symbols } = await secrets.filter(
        (await navigation.findSymbols(input.name)).filter((item) => isInside(workspace.root, item.path)),
      );
      if (symbols.length === 0) return `No symbol named like ${JSON.stringify(input.name)} found.`;
      // Exact names first, then the rest as the language service ranked them.
      const exact = (name: string) => Number(name.replace(/\(\)$/, '') === input.name);
      symbols.sort((a, b) => exact(b.name) - exact(a.name));
      const shown = symbols
        .slice(0, MAX_LOCATIONS)
        .map(
          (item) =>
            `${item.kind} ${item.container ? `${item.container}.` : ''}${item.name} — ${place(workspace.root, item)}`,
        );
      const more = symbols.length > shown.length ? `\n[${symbols.length - shown.length} more not shown]` : '';
      return shown.join('\n') + more;
    },
  });

  const findReferences = defineTool({
    name: 'find_references',
    description: 'Every place a symbol is used, found by the language service (give the line it is on and its name).',
    inputSchema: positionSchema,
    readOnly: true,
    needsApproval: false,
    // Its line is read to find the symbol: a secret file asks, as reading it does.
    traits: { path: (input) => input.path },
    summarize: (input) => `Find references to ${input.symbol}`,
    async execute(input, context) {
      const secrets = await SecretReads.of(workspace, context.approvedSecret);
      const at = await locate(input, secrets);
      if (typeof at === 'string') return { output: at, isError: true };
      return describe(await navigation.references(at), `references to ${input.symbol}`, secrets);
    },
  });

  const goToDefinition = defineTool({
    name: 'go_to_definition',
    description: 'Where a symbol used on a line is defined, found by the language service.',
    inputSchema: positionSchema,
    readOnly: true,
    needsApproval: false,
    // Its line is read to find the symbol: a secret file asks, as reading it does.
    traits: { path: (input) => input.path },
    summarize: (input) => `Go to the definition of ${input.symbol}`,
    async execute(input, context) {
      const secrets = await SecretReads.of(workspace, context.approvedSecret);
      const at = await locate(input, secrets);
      if (typeof at === 'string') return { output: at, isError: true };
      return describe(await navigation.definitions(at), `definitions of ${input.symbol}`, secrets);
    },
  });

  return [getDiagnostics, findSymbol, findReferences, goToDefinition];
}

/** Reads lines of files for showing the code at locations; each file is read once. */
class LineReader {
  private readonly files = new Map<string, Promise<string[] | undefined>>();

  constructor(private readonly workspace: WorkspaceFiles) {}

  async line(absolute: string, line: number): Promise<string | undefined> {
    let file = this.files.get(absolute);
    if (!file) {
      file = this.workspace.readText(absolute).then(
        ({ text }) => text.split(/\r?\n/),
        () => undefined,
      );
      this.files.set(absolute, file);
    }
    return (await file)?.[line - 1];
  }
}

/** 1-based column of `word` on the line: a whole-word match first, any match otherwise. */
export function findWord(text: string, word: string): number | undefined {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const whole = new RegExp(`(?<![\\w$])${escaped}(?![\\w$])`).exec(text);
  const index = whole ? whole.index : text.indexOf(word);
  return index < 0 ? undefined : index + 1;
}

function place(root: string, location: CodeLocation): string {
  const relative = isInside(root, location.path) ? path.relative(root, location.path) : location.path;
  return `${relative.split(path.sep).join('/')}:${location.line}:${location.column}`;
}

function isInside(root: string, absolute: string): boolean {
  const relative = path.relative(root, absolute);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function clip(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > MAX_LINE_CHARS ? `${trimmed.slice(0, MAX_LINE_CHARS)}…` : trimmed;
}
