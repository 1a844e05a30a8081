/**
 * TextSearch with ripgrep (`rg --json`): in VS Code the rg the editor ships, in the CLI the one
 * on PATH. .gitignore is respected; hidden files are searched except .git. The search stops
 * reading once it has one match more than asked for, so a huge result costs nothing. Matches in
 * files the query skips (secret files) are dropped before they count. No configuration file
 * (RIPGREP_CONFIG_PATH) adds options, and links are not followed below the folder searched.
 *
 * ripgrep opens what it searches by path, and follows the path it is given: a folder or file
 * swapped for a link after the tool checked it (to a folder outside, to `.env`) would be searched
 * there. So no line is reported that the workspace file at that path does not have: each file
 * with matches is read again the way the file tools read (ContainedFiles, nothing followed) and a
 * match whose line is not that file's line at that number is dropped.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { onAbort } from '../core/abort';
import type { TextSearch, TextSearchQuery, TextSearchResult } from '../core/ports';
import { decodeText } from '../core/workspace/text-file';
import { isInside } from '../core/workspace/workspace-path';
import { ContainedFiles } from './contained-files';

export class RipgrepSearch implements TextSearch {
  private contained: { root: string; files: ContainedFiles } | undefined;

  /**
   * `excludes`: extra globs to leave out (e.g. VS Code's files.exclude), read at each search.
   * `workspaceRoot`: matches are checked against that workspace's files (none outside it are kept).
   */
  constructor(
    private readonly rgPath: string,
    private readonly excludes: () => string[] = () => [],
    private readonly workspaceRoot?: () => string | undefined,
  ) {}

  async search(query: TextSearchQuery): Promise<TextSearchResult> {
    const found = await this.run(query);
    const root = this.workspaceRoot?.();
    return root === undefined ? found : { ...found, matches: await this.onlyWorkspaceLines(root, found.matches) };
  }

  /** The matches whose line is that line of the workspace file at that path, read with nothing followed. */
  private async onlyWorkspaceLines(
    root: string,
    matches: TextSearchResult['matches'],
  ): Promise<TextSearchResult['matches']> {
    if (this.contained?.root !== root) this.contained = { root, files: new ContainedFiles(root) };
    const files = this.contained.files;
    const realRoot = await realpath(root).catch(() => root);
    const lines = new Map<string, Promise<string[] | undefined>>();
    const linesOf = (file: string) => {
      let read = lines.get(file);
      if (!read) {
        read =
          isInside(realRoot, file) || isInside(root, file)
            ? files.readAsIs(file).then(
                (bytes) => decodeText(bytes).text.split(/\r?\n/),
                () => undefined,
              )
            : Promise.resolve(undefined);
        lines.set(file, read);
      }
      return read;
    };
    const kept = await Promise.all(
      matches.map(async (match) => (await linesOf(match.path))?.[match.line - 1] === match.text),
    );
    return matches.filter((_match, index) => kept[index]);
  }

  private run(query: TextSearchQuery): Promise<TextSearchResult> {
    const args = [
      '--no-config',
      '--json',
      '--hidden',
      '--glob',
      '!.git',
      '--max-columns',
      '2000',
      '--max-filesize',
      '50M',
    ];
    for (const exclude of this.excludes()) args.push('--glob', `!${exclude}`);
    if (query.glob) args.push('--glob', query.glob);
    args.push(query.caseSensitive ? '--case-sensitive' : '--ignore-case');
    if (query.literal) args.push('--fixed-strings');
    args.push('--regexp', query.pattern, '--', query.within);

    return new Promise((resolve, reject) => {
      const child = spawn(this.rgPath, args, { cwd: path.dirname(query.within), stdio: ['ignore', 'pipe', 'pipe'] });
      const matches: TextSearchResult['matches'] = [];
      let truncated = false;
      let stderr = '';
      const stop = () => child.kill();
      // At once when the run was stopped before the search started.
      const unlinkAbort = onAbort(query.signal, stop);
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        if (stderr.length < 4_000) stderr += chunk;
      });
      // Matches are taken one after the other: whether a file is skipped may take a look at it
      // (a hard link to a secret), and a skipped file's matches must never count.
      let taken = Promise.resolve();
      const take = async (match: TextSearchResult['matches'][number]) => {
        if (truncated || (await query.skip?.(match.path))) return;
        if (truncated) return;
        if (matches.length === query.maxMatches) {
          truncated = true;
          stop();
          return;
        }
        matches.push(match);
      };
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (truncated) return;
        const match = parseMatch(line);
        if (match) taken = taken.then(() => take(match));
      });
      child.on('error', (error) => reject(new Error(`ripgrep could not run (${this.rgPath}): ${error.message}`)));
      child.on('close', async (code) => {
        // A skip that fails (a file gone mid-search) fails the search: never a secret shown by default.
        const failed = await taken.then(
          () => undefined,
          (error: unknown) => error,
        );
        unlinkAbort();
        if (failed) return reject(failed instanceof Error ? failed : new Error(String(failed)));
        if (query.signal?.aborted) return reject(new Error('The search was stopped.'));
        // 0: matches, 1: none, 2: an error (a bad pattern) — unless we stopped it ourselves. A
        // file that could not be read (`<path>: … (os error N)`) is no error of the search: and
        // its path may be one a swapped link led to, outside the workspace, so it is not shown.
        // Past the cap the last line may be cut short: it is left out rather than judged.
        const complete = stderr.length >= 4_000 ? stderr.slice(0, stderr.lastIndexOf('\n') + 1) : stderr;
        const problem = complete
          .split('\n')
          .filter((line) => line.trim() !== '' && !/\(os error \d+\)\s*$/.test(line))
          .join('\n');
        if (code === 2 && !truncated && matches.length === 0 && (problem !== '' || stderr.trim() === ''))
          return reject(new Error(`ripgrep: ${problem.trim() || 'the search failed'}`));
        resolve({ matches, truncated });
      });
    });
  }
}

interface RgMatch {
  type: string;
  data?: {
    path?: { text?: string };
    lines?: { text?: string; bytes?: string };
    line_number?: number;
    submatches?: Array<{ start: number }>;
  };
}

function parseMatch(line: string): TextSearchResult['matches'][number] | undefined {
  let message: RgMatch;
  try {
    message = JSON.parse(line) as RgMatch;
  } catch {
    return undefined;
  }
  const data = message.data;
  if (message.type !== 'match' || !data?.path?.text || data.line_number === undefined) return undefined;
  // A line that is not UTF-8 comes as bytes: decoded as the file tools decode it (U+FFFD for the rest).
  const raw = data.lines?.text ?? new TextDecoder('utf-8').decode(Buffer.from(data.lines?.bytes ?? '', 'base64'));
  const text = raw.replace(/\r?\n$/, '');
  // rg reports byte offsets; the column we give is in characters.
  const byteStart = data.submatches?.[0]?.start ?? 0;
  const column = Buffer.from(text, 'utf8').subarray(0, byteStart).toString('utf8').length + 1;
  return { path: path.resolve(data.path.text), line: data.line_number, column, text };
}

/** The first ripgrep found among `candidates`, else `rg` from PATH. */
/**
 * Where a VS Code install keeps its ripgrep: `@vscode/ripgrep/bin` (VS Code 1.100) or, newer,
 * `@vscode/ripgrep-universal/bin/<platform>-<arch>` (1.139 ships every platform's binary), each
 * in node_modules or, packed, node_modules.asar.unpacked.
 */
export function vscodeRipgrepCandidates(
  appRoot: string,
  platform: string = process.platform,
  arch: string = process.arch,
): string[] {
  const program = platform === 'win32' ? 'rg.exe' : 'rg';
  return ['node_modules', 'node_modules.asar.unpacked'].flatMap((folder) => [
    path.join(appRoot, folder, '@vscode', 'ripgrep', 'bin', program),
    path.join(appRoot, folder, '@vscode', 'ripgrep-universal', 'bin', `${platform}-${arch}`, program),
  ]);
}

export function findRipgrep(candidates: string[]): string {
  return candidates.find((candidate) => existsSync(candidate)) ?? 'rg';
}
