/**
 * Turns a path the model gave into a real path inside the workspace, or refuses it with a reason
 * the model can act on. Containment is checked on resolved real paths: a symlink inside the
 * workspace that points outside, or a new file under such a link, is outside.
 */
import { HOST_PLATFORM, isInsidePath, pathFlavor, windowsPathProblem, type PathPlatform } from './platform-path';

export class PathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PathError';
  }
}

export interface RealPathPort {
  /** The real path of an existing file or folder; undefined if it does not exist. */
  realpath(absolute: string): Promise<string | undefined>;
  /** The target of a symbolic link as written in it; undefined if `absolute` is no link. */
  readlink?(absolute: string): Promise<string | undefined>;
}

/** Links followed at most while resolving one path (the kernel's own limit is 40). */
const MAX_LINKS = 40;

/** Syntactic checks first: these inputs are refused before any file system call. */
export function checkPathSyntax(input: string, platform: PathPlatform = HOST_PLATFORM): void {
  if (input.length === 0) throw new PathError('The path is empty.');
  if (input.includes('\0')) throw new PathError('The path contains a NUL byte.');
  if (input.length > 4_096) throw new PathError('The path is too long.');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input)) throw new PathError(`Use a workspace path, not a URL: ${input}`);
  if (input === '~' || input.startsWith('~/'))
    throw new PathError('Home-folder paths (~) are outside the workspace; use a path relative to the workspace root.');
  if (/%2e|%2f|%5c/i.test(input))
    throw new PathError('The path contains percent-encoded characters; give it as plain text.');
  if (input.includes('\\')) throw new PathError('Use forward slashes (/) in paths.');
  const windowsProblem = platform === 'win32' ? windowsPathProblem(input) : undefined;
  if (windowsProblem) throw new PathError(`${windowsProblem} (${input})`);
}

/**
 * Resolves `input` (relative to `root`, or absolute inside it) to an absolute path whose real
 * location is inside the real workspace root. The file need not exist (for writes); the
 * nearest existing ancestor is resolved instead.
 */
export async function resolveWorkspacePath(
  root: string,
  input: string,
  port: RealPathPort,
  platform: PathPlatform = HOST_PLATFORM,
): Promise<string> {
  checkPathSyntax(input, platform);
  const path = pathFlavor(platform);
  const isInside = (folder: string, candidate: string) => isInsidePath(folder, candidate, platform);
  const realRoot = (await port.realpath(root)) ?? root;
  const absolute = path.resolve(root, input);
  if (!isInside(root, absolute) && !isInside(realRoot, absolute))
    throw new PathError(`${input} is outside the workspace.`);
  // Resolve the deepest existing ancestor for real, then add back what does not exist yet. A
  // dangling link on the way (its target does not exist yet) is followed by hand: writing to it
  // would create its target, wherever that is.
  let existing = absolute;
  let missing: string[] = [];
  let real: string | undefined;
  let links = 0;
  for (;;) {
    real = await port.realpath(existing);
    if (real !== undefined) break;
    const target = await port.readlink?.(existing);
    if (target !== undefined) {
      if (++links > MAX_LINKS) throw new PathError(`${input} goes through too many symbolic links.`);
      existing = path.resolve(path.dirname(existing), target);
      continue;
    }
    const parent = path.dirname(existing);
    if (parent === existing) throw new PathError(`${input} cannot be resolved.`);
    missing = [path.basename(existing), ...missing];
    existing = parent;
  }
  const resolved = path.join(real, ...missing);
  if (!isInside(realRoot, resolved))
    throw new PathError(`${input} leads outside the workspace (through a symbolic link).`);
  return resolved;
}

/** Whether `candidate` is `root` or under it, by the rules of the platform this runs on (platform-path.ts). */
export function isInside(root: string, candidate: string): boolean {
  return isInsidePath(root, candidate);
}

/**
 * Where `word` leads from the real folder `from`, resolved the way the kernel does for a
 * command: a link is followed before a later `..` applies (`link/..` is the parent of the
 * link's target, not the folder the link is in). Missing parts are taken as written.
 */
export async function resolveLikeKernel(from: string, word: string, port: RealPathPort): Promise<string> {
  const path = pathFlavor(HOST_PLATFORM);
  const parts = word.split('/').filter((part) => part !== '' && part !== '.');
  let current = word.startsWith('/') ? '/' : from;
  let links = 0;
  while (parts.length > 0) {
    const part = parts.shift()!;
    if (part === '..') {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, part);
    const target = await port.readlink?.(next);
    if (target === undefined) {
      current = next;
      continue;
    }
    if (++links > MAX_LINKS) throw new PathError(`${word} goes through too many symbolic links.`);
    parts.unshift(...target.split('/').filter((piece) => piece !== '' && piece !== '.'));
    if (target.startsWith('/')) current = '/';
  }
  return current;
}
