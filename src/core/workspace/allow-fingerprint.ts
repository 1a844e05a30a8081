/**
 * The fingerprint a user's "Allow" of a repository's MCP server or hook is kept under, made of
 * an identity (which definition this is) and parts (what decides what runs: the command line,
 * the environment's values, the env file's values, the files it runs…). The identity and each
 * part are hashed separately and joined, `2:<identity>:<part>:<part>…`, so that:
 * - any change to a part is another fingerprint: the allow no longer holds and the user is asked
 *   again;
 * - the question can say WHICH parts changed since the user allowed the same identity, by
 *   comparing hashes alone (no value is kept: a hash of a hash of an env value is all there is);
 * - a new allow of the same identity can replace the old one (stores stay bounded).
 * The leading `2` is the format: allows kept under the older, single-hash fingerprints simply no
 * longer match, and the user is asked once more.
 */
import { createHash } from 'node:crypto';

const FORMAT = '2';

export interface FingerprintPart {
  /** How the question names it when it changed: "the environment's values". */
  label: string;
  /** Anything JSON can write; hashed, never kept. */
  value: unknown;
}

export function composeFingerprint(identity: unknown, parts: readonly FingerprintPart[]): string {
  return [FORMAT, hashOf(identity), ...parts.map((part) => hashOf([part.label, part.value]))].join(':');
}

/** The part of a fingerprint naming the definition, whatever its parts: `2:<identity>`. */
export function fingerprintIdentity(fingerprint: string): string {
  const [format, identity] = fingerprint.split(':');
  return `${format}:${identity}`;
}

/**
 * The labels of the parts that differ between `current` and the newest of `earlier` with the
 * same identity (the allow that no longer holds); undefined when none has that identity (a new
 * definition, not a changed one).
 */
export function changedParts(
  earlier: Iterable<string>,
  current: string,
  labels: readonly string[],
): string[] | undefined {
  const identity = fingerprintIdentity(current);
  let previous: string | undefined;
  for (const candidate of earlier)
    if (candidate !== current && fingerprintIdentity(candidate) === identity) previous = candidate;
  if (previous === undefined) return undefined;
  const before = previous.split(':').slice(2);
  const now = current.split(':').slice(2);
  return labels.filter((_label, index) => before[index] !== now[index]);
}

/** "Changed since you allowed it: the env file, a file it runs." — '' when nothing is known. */
export function changeNote(changed: readonly string[] | undefined): string {
  if (changed === undefined || changed.length === 0) return '';
  return `Changed since you allowed it: ${changed.join(', ')}.`;
}

function hashOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}
