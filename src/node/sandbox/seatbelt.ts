/**
 * macOS: a Seatbelt profile for `sandbox-exec` with the same promises as bubblewrap on Linux —
 * writes only in the workspace (its protected paths excepted) and the temporary folders, home
 * secrets unreadable, no network unless granted. Untested on a Mac (our machines run Linux):
 * unit-tested as text only, and the README says so. In SBPL the last matching rule wins.
 */
import { protectedEntries, type ConfinementPlan } from './confinement';
import { existingSecrets, homeMounts } from './home-tools';

/** `.env` files a command may not create or change (bubblewrap protects the existing ones). */
const ENV_NAMES = [
  '.env',
  '.env.local',
  '.env.development',
  '.env.production',
  '.env.test',
  '.env.development.local',
  '.env.production.local',
  '.env.test.local',
];
import * as path from 'node:path';

/** A string literal of the profile language. */
export function sbplString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function seatbeltProfile(plan: ConfinementPlan): string {
  const lines = ['(version 1)', '(allow default)', '(deny file-write*)'];
  const writable = ['/private/tmp', '/private/var/folders', ...(plan.root ? [plan.root] : [])];
  lines.push(
    `(allow file-write* ${writable.map((folder) => `(subpath ${sbplString(folder)})`).join(' ')} (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/fd/"))`,
  );
  if (plan.root) {
    // Seatbelt matches paths that do not exist yet too: a missing protected entry cannot be made.
    const entries = (plan.entries ?? protectedEntries(plan.root)).map((entry) => entry.absolute);
    const envFiles = ENV_NAMES.map((name) => path.join(plan.root!, name));
    const deeper = [
      ...(plan.protectedSet?.paths.map((entry) => entry.absolute) ?? []),
      ...(plan.protectedSet?.missing.map((entry) => entry.absolute) ?? []),
      ...(plan.protectedSet?.linked ?? []),
      ...(plan.protectedSet?.unseen ?? []),
    ];
    lines.push(
      `(deny file-write* ${[...new Set([...entries, ...envFiles, ...deeper])].map((absolute) => `(subpath ${sbplString(absolute)})`).join(' ')})`,
    );
  }
  // The home is not hidden whole here: its known secrets and the tools' credentials are.
  const secrets = [...existingSecrets(plan), ...homeMounts(plan).covers];
  if (secrets.length)
    lines.push(`(deny file-read* ${secrets.map((secret) => `(subpath ${sbplString(secret.path)})`).join(' ')})`);
  if (!plan.network) lines.push('(deny network*)');
  return `${lines.join('\n')}\n`;
}
