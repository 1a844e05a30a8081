/**
 * Path rules of the platform the files live on: the one place where paths are compared and
 * contained. POSIX keeps the behaviour containment always had (`path.posix.relative`). Windows
 * paths are compared the way Windows names files, not the way they are spelled:
 *
 * - drive letters and names are case-insensitive (`C:\Work` = `c:\work`), `\` and `/` are one
 *   separator; only ASCII letters are folded here, because JavaScript's case mappings join names
 *   NTFS keeps apart (the Kelvin sign `\u212A` lowers to `k`, but `C:\wor\u212A` is not `C:\work`):
 *   two names are the same here only when Windows surely takes them as one;
 * - Windows reads a name ending in dots or spaces differently by where it stands (`secret.txt.`
 *   opens `secret.txt`, `...` between separators is a folder of that name, `ws ` mid-path is not
 *   `ws`): such a path has no reading here, so it is never inside anything (tools refuse those
 *   names before: windowsPathProblem);
 * - `\\server\share\…` (UNC) compares like a drive whose root is the share; `\\?\…` and
 *   `\\.\…` (the paths that skip Windows' normalization, and devices) are never inside anything;
 * - 8.3 short names (`PROGRA~1`) cannot be expanded without the file system: callers compare
 *   real paths (their RealPathPort's realpath expands them; Node's fs.promises.realpath does),
 *   and a path the model gives is refused when it spells one (windowsPathProblem).
 *
 * windowsPathProblem() refuses, in a path given to a tool, what Windows would read as something
 * else: alternate data streams (`file.txt:stream`, `.git::$INDEX_ALLOCATION`), drive-relative
 * paths (`C:file`), reserved device names (`CON`, `NUL`, `COM1.txt`), UNC and device paths.
 */
import * as path from 'node:path';

export type PathPlatform = 'posix' | 'win32';

/** The platform this process runs on, read from node:path (core takes no `process`). */
export const HOST_PLATFORM: PathPlatform = path.sep === '\\' ? 'win32' : 'posix';

export function pathFlavor(platform: PathPlatform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

/** Whether `candidate` is `root` or under it. Both absolute; on Windows, anything else is not inside. */
export function isInsidePath(root: string, candidate: string, platform: PathPlatform = HOST_PLATFORM): boolean {
  if (platform === 'posix') {
    const relative = path.posix.relative(root, candidate);
    return relative === '' || (!relative.startsWith('..') && !path.posix.isAbsolute(relative));
  }
  const rootKey = windowsPathKey(root);
  const candidateKey = windowsPathKey(candidate);
  if (rootKey === undefined || candidateKey === undefined) return false;
  if (rootKey.volume !== candidateKey.volume || candidateKey.names.length < rootKey.names.length) return false;
  return rootKey.names.every((name, at) => candidateKey.names[at] === name);
}

/** Whether two absolute paths name the same place under the platform's rules. */
export function samePath(first: string, second: string, platform: PathPlatform = HOST_PLATFORM): boolean {
  return isInsidePath(first, second, platform) && isInsidePath(second, first, platform);
}

/**
 * A Windows absolute path as Windows would read it: its volume (`c:` or `\\server\share`, lower
 * case) and its names (lower case, trailing dots and spaces dropped, `.` and `..` applied, never
 * above the volume). Undefined for what has no such reading here: relative and drive-relative
 * paths, `\C`-style paths without a drive, `\\?\` and `\\.\` paths.
 */
export function windowsPathKey(absolute: string): { volume: string; names: string[] } | undefined {
  if (absolute.includes('\0')) return undefined;
  const unified = absolute.replace(/\//g, '\\');
  let volume: string;
  let rest: string;
  const drive = /^([a-zA-Z]):\\(.*)$/s.exec(unified);
  if (drive) {
    volume = `${drive[1]!.toLowerCase()}:`;
    rest = drive[2]!;
  } else if (unified.startsWith('\\\\')) {
    // `\\?\`, `\\.\` and their look-alikes: long-path and device namespaces, never compared.
    const unc = /^\\\\([^\\]+)\\([^\\]+)(?:\\(.*))?$/s.exec(unified);
    if (!unc || unc[1] === '?' || unc[1] === '.') return undefined;
    if (/[. ]$/.test(unc[1]!) || /[. ]$/.test(unc[2]!)) return undefined;
    volume = `\\\\${windowsName(unc[1]!)}\\${windowsName(unc[2]!)}`;
    rest = unc[3] ?? '';
  } else {
    return undefined;
  }
  const names: string[] = [];
  for (const segment of rest.split('\\')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      names.pop();
      continue;
    }
    // `...`, `.. `, `ws.`, `ws `: Windows' reading depends on the name's place; none is taken.
    if (/[. ]$/.test(segment)) return undefined;
    names.push(windowsName(segment));
  }
  return { volume, names };
}

/** A name as it is compared: ASCII letters folded, nothing else (see the module's comment). */
function windowsName(segment: string): string {
  return segment.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/**
 * Device names Windows opens in every folder, with any extension (`nul.txt` is NUL) and with
 * spaces before it (`NUL .txt`, `con  .log`: Windows trims them before comparing).
 */
const RESERVED_NAME = /^(con|prn|aux|nul|conin\$|conout\$|clock\$|com[0-9¹²³]|lpt[0-9¹²³]) *(\..*)?$/i;
/** An 8.3 short name's tail (`PROGRA~1`, `GIT~1.CFG`). */
const SHORT_NAME = /~[0-9]+(\.[^.]{0,3})?$/;

/**
 * Why Windows would read `input` (a path a tool was given, relative or absolute, with `/` or
 * `\`) as something other than the file it seems to name; undefined when it reads it plainly.
 */
export function windowsPathProblem(input: string): string | undefined {
  const unified = input.replace(/\//g, '\\');
  if (unified.startsWith('\\\\'))
    return unified.startsWith('\\\\?\\') || unified.startsWith('\\\\.\\')
      ? 'Device and \\\\?\\ paths are not workspace paths.'
      : 'Network (UNC) paths are outside the workspace.';
  const drive = /^[a-zA-Z]:/.exec(unified);
  if (drive && unified[2] !== '\\')
    return 'A drive letter without a slash (C:file) names a place relative to that drive; give a full path.';
  const rest = drive ? unified.slice(2) : unified;
  if (rest.includes(':'))
    return 'A colon in a name opens an alternate data stream on Windows (file.txt:stream); name the file itself.';
  for (const segment of rest.split('\\')) {
    if (segment === '' || segment === '.' || segment === '..') continue;
    if (/[. ]$/.test(segment))
      return `Windows drops the trailing dots and spaces of "${segment}"; give the name without them.`;
    if (RESERVED_NAME.test(segment)) return `"${segment}" is a device name on Windows, not a file.`;
    if (SHORT_NAME.test(segment))
      return `"${segment}" looks like a Windows short (8.3) name; give the long name instead.`;
    if (/[<>"|?*]/.test(segment) || [...segment].some((character) => character.charCodeAt(0) < 0x20))
      return `"${segment}" has characters Windows does not allow in names.`;
  }
  return undefined;
}
