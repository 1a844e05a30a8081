/**
 * Linux: the options of bubblewrap (ARCHITECTURE.md: called directly, ~5 ms a command, a
 * private /tmp, `--clearenv`, no stub files left behind). A new user namespace with every
 * capability dropped (as root too: nothing can remount, unmount or type into a terminal); the
 * whole file system read-only; a throw-away home with only the tools folders bound back, their
 * credentials covered (home-tools.ts); the workspace writable with its protected entries and
 * protected set read-only (confinement.ts, protected-set.ts); a private /tmp,
 * /run and $XDG_RUNTIME_DIR; its own PID namespace and /proc; a new session; a new network
 * namespace unless the network is granted; and the seccomp filter (seccomp.ts) against Unix
 * sockets, terminal injection and the keyring. Later mounts cover earlier ones: the order is
 * the design.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../../core/workspace/workspace-path';
import { protectedEntries, protectedTargets, type ConfinementPlan } from './confinement';
import { existingSecrets, homeMounts } from './home-tools';
import { otherViews } from './home-views';
import { realOr } from './quiet-fs';

export interface BubblewrapOptions {
  args: string[];
  /** Missing protected entries given a placeholder: to remove after the run. */
  placeholders: string[];
}

export function bubblewrapArgs(plan: ConfinementPlan, seccompFd?: number): BubblewrapOptions {
  const args = [
    '--unshare-user',
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
  ];
  if (!plan.network) args.push('--unshare-net');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc');
  args.push('--tmpfs', '/tmp', '--tmpfs', '/var/tmp', '--tmpfs', '/run');
  // With the network granted, name resolution may live under /run (systemd-resolved).
  if (plan.network && existsSync('/run/systemd/resolve'))
    args.push('--ro-bind', '/run/systemd/resolve', '/run/systemd/resolve');
  const runtime = plan.env.XDG_RUNTIME_DIR;
  if (runtime && !runtime.startsWith('/run/') && existsSync(runtime)) args.push('--tmpfs', runtime);
  // The home folder: empty and throw-away, the tools bound back read-only, their credentials hidden.
  // Mount points are real paths: bubblewrap cannot mount on a link (`/home -> /var/home`), and
  // the home's path through the link still leads there.
  const home = realOr(plan.home);
  const inRealHome = (file: string) =>
    isInside(plan.home, file) ? path.join(home, path.relative(plan.home, file)) : file;
  // The account's own home too, when HOME names another folder (it is mounted first: HOME may lie
  // in it), and every other place a home shows (a bind mount of it elsewhere).
  const others = (plan.otherHomes ?? []).filter((other) => existsSync(other)).map(realOr);
  for (const view of otherViews([...others, home])) if (existsSync(view)) args.push('--tmpfs', view);
  for (const other of others) args.push('--tmpfs', other);
  args.push('--tmpfs', home);
  const mounts = homeMounts(plan);
  const binds = [
    ...new Map(mounts.binds.map((bind) => [inRealHome(bind.dest), { ...bind, dest: inRealHome(bind.dest) }])).values(),
  ];
  for (const bind of binds.sort((a, b) => a.dest.length - b.dest.length))
    args.push('--ro-bind', bind.source, bind.dest);
  // Known secrets inside what is bound back, and the extra hidden paths. (A device node bound
  // elsewhere cannot be opened, so a file is covered by an empty file, not /dev/null.)
  const within = (secret: string) => binds.some((bind) => secret.startsWith(`${bind.dest}/`));
  const hidden = existingSecrets(plan)
    .map((secret) => ({ ...secret, path: plan.hidden.includes(secret.path) ? secret.path : inRealHome(secret.path) }))
    .filter((secret) => within(secret.path) || plan.hidden.includes(secret.path));
  const covers = mounts.covers.map((cover) => ({ ...cover, path: inRealHome(cover.path) }));
  for (const secret of [...new Map([...hidden, ...covers].map((secret) => [secret.path, secret])).values()]) {
    if (secret.kind === 'folder') args.push('--tmpfs', secret.path);
    else if (plan.emptyFile) args.push('--ro-bind', plan.emptyFile, secret.path);
  }
  const placeholders: string[] = [];
  if (plan.root) {
    args.push('--bind', plan.root, plan.root);
    const entries = plan.entries ?? protectedEntries(plan.root);
    for (const entry of entries) {
      if (entry.state === 'folder' || entry.state === 'file') args.push('--ro-bind', entry.absolute, entry.absolute);
      else if (entry.state === 'missing' && plan.placeholder) {
        // Made empty and read-only for the run, so nothing can create it meanwhile.
        args.push('--ro-bind', plan.placeholder, entry.absolute);
        placeholders.push(entry.absolute);
      }
      // A link: its target is bound below if it is in the workspace; the link is checked after the run.
    }
    // A linked entry's target with the folders leading to it; then the protected set (parents
    // first: a later mount covers an earlier one), the stand-ins for its missing places
    // (protected-run.ts), the files that have other names and what the walk did not see —
    // read-only; and the folders above protected paths bound onto themselves, writable: a
    // mount point cannot be renamed or removed, so nothing can carry a protected path away.
    const bound = new Set(
      entries.filter((entry) => entry.state === 'folder' || entry.state === 'file').map((entry) => entry.absolute),
    );
    const set = plan.protectedSet;
    const readOnly = [
      ...protectedTargets(plan.root, entries),
      ...(set?.paths.map((entry) => entry.absolute) ?? []),
      ...(set?.missing.map((entry) => entry.absolute) ?? []),
      ...(set?.linked ?? []),
      ...(set?.unseen ?? []),
    ].filter((target) => !bound.has(target));
    // A guard inside a read-only folder would make its part writable again: none there.
    const guards = (set?.guards ?? []).filter(
      (folder) => !readOnly.some((target) => folder === target || folder.startsWith(`${target}/`)),
    );
    const mounts = [
      ...guards.map((folder) => ({ target: folder, writable: true })),
      ...[...new Set(readOnly)].map((target) => ({ target, writable: false })),
    ].filter((mount) => existsSync(mount.target));
    // Shorter first; at the same length the read-only one last (it wins).
    mounts.sort((a, b) => a.target.length - b.target.length || Number(b.writable) - Number(a.writable));
    for (const mount of mounts) args.push(mount.writable ? '--bind' : '--ro-bind', mount.target, mount.target);
  }
  if (seccompFd !== undefined) args.push('--seccomp', String(seccompFd));
  args.push('--chdir', plan.cwd, '--clearenv');
  for (const [name, value] of Object.entries(plan.env)) args.push('--setenv', name, value);
  return { args, placeholders };
}
