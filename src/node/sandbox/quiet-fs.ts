/**
 * File-system looks that answer "not there" instead of throwing: the sandbox's walks meet
 * entries that vanish, dangle or refuse, and treat them all as absent.
 */
import { lstatSync, readlinkSync, realpathSync, type Stats } from 'node:fs';

export function lstatOr(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

export function isLink(file: string): boolean {
  return lstatOr(file)?.isSymbolicLink() ?? false;
}

export function readlinkOr(file: string): string | undefined {
  try {
    return readlinkSync(file);
  } catch {
    return undefined;
  }
}

export function realOrUndefined(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

/** The real path, or the path as given when it cannot be resolved. */
export function realOr(file: string): string {
  return realOrUndefined(file) ?? file;
}
