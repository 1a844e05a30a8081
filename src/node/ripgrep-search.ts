/**
 * TextSearch with ripgrep (`rg --json`): in VS Code the rg the editor ships, in the CLI the one
 * on PATH. .gitignore is respected; hidden files are searched except .git. The search stops
 * reading once it has one match more than asked for, so a huge result costs nothing. Matches in
 * files the query skips (secret files) are dropped before they count. No configuration file
 * (RIPGREP_CONFIG_PATH) adds options, and links are not followed below the folder searched.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { onAbort } from '../core/abort';
import type { TextSearch, TextSearchQuery, TextSearchResult } from '../core/ports';

export class RipgrepSearch implements TextSearch {
  /** `excludes`: extra globs to leave out (e.g. VS Code's files.exclude), read at each search. */
  constructor(
    private readonly rgPath: string,
    private readonly excludes: () => string[] = () => [],
  ) {}

  search(query: TextSearchQuery): Promise<TextSearchResult> {
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
        // 0: matches, 1: none, 2: an error (a bad pattern) — unless we stopped it ourselves.
        if (code === 2 && !truncated && matches.length === 0)
          return reject(new Error(`ripgrep: ${stderr.trim() || 'the search failed'}`));
        resolve({ matches, truncated });
      });
    });
  }
}

interface RgMatch {
  type: string;
  data?: {
    path?: { text?: string };
    lines?: { text?: string };
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
  const text = (data.lines?.text ?? '').replace(/\r?\n$/, '');
  // rg reports byte offsets; the column we give is in characters.
  const byteStart = data.submatches?.[0]?.start ?? 0;
  const column = Buffer.from(text, 'utf8').subarray(0, byteStart).toString('utf8').length + 1;
  return { path: path.resolve(data.path.text), line: data.line_number, column, text };
}

/** The first ripgrep found among `candidates`, else `rg` from PATH. */
export function findRipgrep(candidates: string[]): string {
  return candidates.find((candidate) => existsSync(candidate)) ?? 'rg';
}
