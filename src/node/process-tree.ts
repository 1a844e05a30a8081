/**
 * The processes a command started, found through /proc rather than its process group: a
 * command can leave its group (`setsid sleep 90 &`) and still hold the output pipes open, so
 * killing the group alone leaves it running and a caller waiting on the pipes hangs.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** After a command's shell exits, how long its pipes may stay open (held by something it left running). */
export const CLOSE_GRACE_MS = 1_000;

/** Process ids below `root` (children, their children…), on Linux; empty elsewhere. */
export function descendants(root: number): number[] {
  if (process.platform !== 'linux') return [];
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!Number.isInteger(parent)) continue;
    const siblings = children.get(parent) ?? [];
    siblings.push(Number(entry));
    children.set(parent, siblings);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0 && found.length < 10_000) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/**
 * Processes whose environment holds `entry` exactly ("NAME=value"): what a command started keeps
 * it even after leaving its session and losing its parent (`setsid`, a double fork), which
 * neither the process group nor the parent chain can follow. Linux only; our own user's.
 */
export function processesWithEnvironment(entry: string): number[] {
  if (process.platform !== 'linux') return [];
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(entry)) found.push(Number(name));
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

/**
 * SIGKILL to the process group of `pid`, to every process below it, and (given `marker`, an
 * environment entry the command was started with) to every process that still carries it.
 */
export function killTree(pid: number, marker?: string): void {
  const below = descendants(pid);
  const marked = marker ? processesWithEnvironment(marker) : [];
  for (const target of [-pid, pid, ...below, ...marked]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
