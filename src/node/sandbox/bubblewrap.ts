/**
 * Linux: the options of bubblewrap (ARCHITECTURE.md: called directly, ~5 ms a command, a
 * private /tmp, `--clearenv`, no stub files left behind). A new user namespace with every
 * capability dropped (as root too: nothing can remount, unmount or type into a terminal); the
 * whole file system read-only; a throw-away home with only the tools folders bound back; the
 * workspace writable with its protected entries read-only (confinement.ts); a private /tmp,
 * /run and $XDG_RUNTIME_DIR; its own PID namespace and /proc; a new session; a new network
 * namespace unless the network is granted; and the seccomp filter (seccomp.ts) against Unix
 * sockets, terminal injection and the keyring. Later mounts cover earlier ones: the order is
 * the design.
 */
import { existsSync } from 'node:fs';
import { existingSecrets, homeTools, protectedEntries, protectedTargets, type ConfinementPlan } from './confinement';

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
  // The home folder: empty and throw-away, the tools bound back read-only, their secrets hidden.
  args.push('--tmpfs', plan.home);
  const tools = homeTools(plan);
  for (const tool of tools) args.push('--ro-bind', tool, tool);
  // Secrets inside the tools bound back, and the extra hidden paths. (A device node bound
  // elsewhere cannot be opened, so a file is covered by an empty file, not /dev/null.)
  const within = (secret: string) => tools.some((tool) => secret.startsWith(`${tool}/`));
  for (const secret of existingSecrets(plan)) {
    if (!within(secret.path) && !plan.hidden.includes(secret.path)) continue;
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
    // A `.git` file's git folder, and a linked entry's target with the folders leading to it.
    for (const target of protectedTargets(plan.root, entries)) args.push('--ro-bind', target, target);
  }
  if (seccompFd !== undefined) args.push('--seccomp', String(seccompFd));
  args.push('--chdir', plan.cwd, '--clearenv');
  for (const [name, value] of Object.entries(plan.env)) args.push('--setenv', name, value);
  return { args, placeholders };
}
