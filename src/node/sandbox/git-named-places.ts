/**
 * What a git repository's control files name, read the way git reads them (protected-set.ts
 * turns the names into real paths): the folder a `.git` file names, and in a configuration the
 * paths and programs git uses — so that a confined command cannot change (or create, when it
 * is missing) a file git later runs outside the sandbox.
 */

/**
 * The folder a `.git` file names, as git reads it (setup.c, read_gitfile_gently): the file
 * starts with `gitdir: `, and only line ends are taken off the end — a trailing space belongs
 * to the name. A looser reading is returned too when it differs, so that both are protected.
 */
export function gitdirValues(text: string): string[] {
  const values: string[] = [];
  if (text.startsWith('gitdir: ')) {
    const exact = text.slice('gitdir: '.length).replace(/[\r\n]+$/, '');
    if (exact && !exact.includes('\n')) values.push(exact);
  }
  const loose = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1];
  if (loose && !values.includes(loose)) values.push(loose);
  return values;
}

/** `section.key` (subsection kept, lower-cased but for the subsection) and value, per line of a git config. */
export function configValues(text: string): Array<{ key: string; value: string }> {
  const values: Array<{ key: string; value: string }> = [];
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const header = /^\[\s*([^\s\]"]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$/.exec(line);
    let rest = line;
    if (header) {
      section = header[2] !== undefined ? `${header[1]!.toLowerCase()}.${header[2]}` : header[1]!.toLowerCase();
      rest = header[3] ?? '';
    }
    const pair = /^([A-Za-z][\w-]*)\s*(?:=\s*(.*))?$/.exec(rest);
    if (!pair || !section) continue;
    values.push({ key: `${section}.${pair[1]!.toLowerCase()}`, value: configValue(pair[2] ?? '') });
  }
  return values;
}

/** A git config value: quotes removed, a comment after it dropped. */
function configValue(raw: string): string {
  let value = '';
  let quoted = false;
  for (let at = 0; at < raw.length; at++) {
    const char = raw[at]!;
    if (char === '\\' && at + 1 < raw.length) value += raw[++at];
    else if (char === '"') quoted = !quoted;
    else if ((char === '#' || char === ';') && !quoted) break;
    else value += char;
  }
  return value.trim();
}

/** Keys whose value git runs as a command (through the shell: every word may be a script). */
const PROGRAM_KEY =
  /^(core\.(fsmonitor|sshcommand|editor|pager|askpass|gitproxy)|sequence\.editor|diff\.external|gpg(\.[^.]+)?\.program|credential(\..+)?\.helper|filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|merge\..+\.driver|mergetool\..+\.cmd|difftool\..+\.cmd|alias\..+|pager\..+|interactive\.difffilter|uploadpack\.packobjectshook|receive\.procreceiverefs|submodule\..+\.update|web\.browser|browser\..+\.cmd|man\..+\.cmd|ssh\.variant)$/;

/** Keys whose value is a path git reads or runs from. */
export const HOOKS_KEY = 'core.hookspath';
export const isIncludeKey = (key: string) =>
  key === 'include.path' || (key.startsWith('includeif.') && key.endsWith('.path'));

export const isProgramKey = (key: string) => PROGRAM_KEY.test(key);

/**
 * The words of a config value that may name a file: a command line split the way a shell
 * would roughly (quotes, operators, `=` of an option), a leading `!` (aliases) dropped, options
 * and `%f`-style placeholders left out. A word that starts with a variable (`$GIT_DIR/x`,
 * `${PWD}/x`) is given without it too: it is then read from the worktree, where git runs.
 */
export function valueWords(value: string): string[] {
  const words: string[] = [];
  for (const raw of value.replace(/^!/, '').split(/[\s'"`;&|()<>=]+/)) {
    if (!raw || raw.startsWith('-') || raw.startsWith('%')) continue;
    words.push(raw);
    const after = /^(?:\$\{?\w+\}?\/)+(.+)$/.exec(raw)?.[1];
    if (after) words.push(after);
  }
  return words;
}

/** Whether a word is written as a path (so a missing file it names is worth holding). */
export const pathLike = (word: string) =>
  word.includes('/') || /^\.?[\w-]+\.(sh|bash|py|js|cjs|mjs|pl|rb)$/i.test(word);
