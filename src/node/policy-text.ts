/**
 * Reads a policy file from disk without trusting what is there (issue 32): a folder, a FIFO, a
 * device or a socket in its place, a huge or sparse file, a file that cannot be read — each is
 * a problem in words, found without blocking (a FIFO is never opened for a blocking read) and
 * without reading more than a policy may hold.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { MAX_POLICY_BYTES } from '../core/policy/agent-policy';

export type PolicyText = { kind: 'missing' } | { kind: 'text'; text: string } | { kind: 'unusable'; problem: string };

export function readPolicyText(file: string): PolicyText {
  let fd: number | undefined;
  try {
    const kind = whatItIs(statSync(file));
    if (kind) return { kind: 'unusable', problem: kind };
    // O_NONBLOCK: swapped for a FIFO since the check, the open still returns at once.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const again = whatItIs(fstatSync(fd));
    if (again) return { kind: 'unusable', problem: again };
    const buffer = Buffer.alloc(MAX_POLICY_BYTES + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length === buffer.length)
        return {
          kind: 'unusable',
          problem: `It is larger than ${MAX_POLICY_BYTES / 1024} KB, the most a policy may be.`,
        };
    }
    return { kind: 'text', text: buffer.subarray(0, length).toString('utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    if (code === 'EACCES' || code === 'EPERM')
      return { kind: 'unusable', problem: 'It cannot be read (permission denied).' };
    if (code === 'ELOOP') return { kind: 'unusable', problem: 'It is a loop of symbolic links.' };
    return { kind: 'unusable', problem: `It cannot be read (${code ?? (error as Error).message}).` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Why a file of this kind is no policy, or undefined for a regular file of a fitting size. */
function whatItIs(stat: ReturnType<typeof statSync> & object): string | undefined {
  if (stat.isDirectory()) return 'It is a folder, not a file.';
  if (!stat.isFile()) return 'It is not a regular file (a FIFO, socket or device).';
  if (stat.size > MAX_POLICY_BYTES)
    return `It is ${Math.round(Number(stat.size) / 1024)} KB; at most ${MAX_POLICY_BYTES / 1024} KB is read.`;
  return undefined;
}
