/**
 * What content of secret files (`.env*`, keys, credential files: protected-paths.ts) a built-in
 * tool may hand the model: none, unless the user approved this very call to read that secret
 * (ToolContext.approvedSecret, set only for a call call-risk.ts asked about). A file is a secret
 * by the name it has in the workspace or by where it really leads, so a link named `notes.txt`
 * that points to `.env` is one too. Search, diagnostics, symbols, references, mentions and
 * skills all decide here, so none of them is a way around the question read_file asks.
 */
import * as path from 'node:path';
import type { WorkspaceFiles } from '../ports';
import { isInside, type RealPathPort } from '../workspace/workspace-path';
import { isSecretPlace } from './protected-paths';

/** Said to the model wherever secret files were left out, so it knows the one way to them. */
export const SECRETS_LEFT_OUT =
  'Secret files (.env*, keys, credential files) are left out; read_file one to see it (that asks the user).';

/** What SecretReads asks of a workspace: where paths lead, and which files are other names of secrets. */
export type SecretReadsPort = RealPathPort & Pick<WorkspaceFiles, 'root' | 'linkedSecret'>;

export class SecretReads {
  /** Verdicts by path: a search asks about each matching file once. */
  private readonly verdicts = new Map<string, Promise<boolean>>();

  private constructor(
    private readonly roots: readonly string[],
    private readonly files: SecretReadsPort,
    private readonly approved: string | undefined,
  ) {}

  /** For a workspace; `approved` is the secret the user let this call read (a file or folder, real path). */
  static async of(files: SecretReadsPort, approved?: string): Promise<SecretReads> {
    const realRoot = (await files.realpath(files.root)) ?? files.root;
    return new SecretReads([...new Set([files.root, realRoot])], files, approved);
  }

  /**
   * Whether a file (or a folder of secrets, `.ssh`) is a secret by its name: relative to the workspace when it is inside it, by
   * its whole path otherwise (a language server may point into `~/.aws`).
   */
  isSecretByName(absolute: string): boolean {
    const inside = this.roots.filter((root) => isInside(root, absolute));
    if (inside.length === 0) return isSecretPlace(absolute);
    return inside.some((root) => isSecretPlace(path.relative(root, absolute).split(path.sep).join('/')));
  }

  /** Whether the user approved this call to read that (real) path: the secret itself or inside the secret folder. */
  approves(real: string): boolean {
    return this.approved !== undefined && isInside(this.approved, real);
  }

  /**
   * Whether the file's content must not be shown, not approved: a secret by its name, by its real
   * path, or by its bytes — another hard link of a secret file, whatever it is called.
   */
  hides(absolute: string): Promise<boolean> {
    let verdict = this.verdicts.get(absolute);
    if (!verdict) this.verdicts.set(absolute, (verdict = this.judge(absolute)));
    return verdict;
  }

  private async judge(absolute: string): Promise<boolean> {
    const real = (await this.files.realpath(absolute).catch(() => undefined)) ?? absolute;
    if (this.approves(real)) return false;
    if (this.isSecretByName(absolute) || this.isSecretByName(real)) return true;
    return (await this.files.linkedSecret(real).catch(() => undefined)) !== undefined;
  }

  /** The items whose file may be shown, and how many were left out. */
  async filter<T extends { path: string }>(items: readonly T[]): Promise<{ shown: T[]; leftOut: number }> {
    const hidden = await Promise.all(items.map((item) => this.hides(item.path)));
    const shown = items.filter((_item, index) => !hidden[index]);
    return { shown, leftOut: items.length - shown.length };
  }
}

/** The refusal a tool gives when asked for a secret's content in a call nobody approved. */
export function secretRefusal(shown: string): string {
  return `${shown} holds secrets, and this call was not approved to read it. Reading a secret asks the user: call read_file with its path.`;
}

/** A diff header line that names a file, and the name. */
const DIFF_HEADER_NAME =
  /^(?:diff --(?:git|cc|combined) |--- |\+\+\+ |rename from |rename to |copy from |copy to )(.*)$/;

/**
 * A diff (`git diff`, merge conflicts' combined diffs too) without the changes of secret files: each file's section whose
 * header names a secret (old or new name, renames and copies too) keeps its header line only.
 */
export function withoutSecretChanges(diff: string, isSecret: (file: string) => boolean): string {
  const sections = diff.split(/^(?=diff --(?:git|cc|combined) )/m);
  return sections
    .map((section) => {
      const body = section.search(/^@@/m);
      const header = body < 0 ? section : section.slice(0, body);
      const names = header
        .split('\n')
        .map((line) => DIFF_HEADER_NAME.exec(line)?.[1])
        .filter((name): name is string => name !== undefined)
        .flatMap((name) => [name, ...name.split(/"?\s+"?/)])
        .map((name) => name.replace(/^"|"$/g, '').replace(/\t.*$/, ''));
      if (!names.some(isSecret)) return section;
      const first = section.split('\n', 1)[0];
      return `${first}\n(a secret file: its changes are not shown)\n`;
    })
    .join('');
}
