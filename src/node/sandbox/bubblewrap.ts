/**
 * Linux: the options of bubblewrap (ARCHITECTURE.md: called directly, ~5 ms a command, a
 * private /tmp, `--clearenv`, no stub files left behind). The whole file system read-only, the
 * workspace writable with its protected paths read-only, home secrets hidden, a private /tmp,
 * /run and $XDG_RUNTIME_DIR (no host socket: Docker, D-Bus, ssh-agent), its own PID namespace
 * and /proc (no host process visible), a new session (no typing into the user's terminal), and
 * a new network namespace unless the network is granted (127.0.0.1 is the sandbox's own,
 * abstract sockets unreachable).
 */
import { existsSync } from 'node:fs';
import { existingProtected, existingSecrets, type ConfinementPlan } from './confinement';

export function bubblewrapArgs(plan: ConfinementPlan): string[] {
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
  ];
  if (!plan.network) args.push('--unshare-net');
  args.push(
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    '/var/tmp',
    '--tmpfs',
    '/run',
  );
  // With the network granted, name resolution may live under /run (systemd-resolved).
  if (plan.network && existsSync('/run/systemd/resolve'))
    args.push('--ro-bind', '/run/systemd/resolve', '/run/systemd/resolve');
  const runtime = plan.env.XDG_RUNTIME_DIR;
  if (runtime && !runtime.startsWith('/run/') && existsSync(runtime)) args.push('--tmpfs', runtime);
  for (const secret of existingSecrets(plan)) {
    if (secret.kind === 'folder') args.push('--tmpfs', secret.path);
    else args.push('--ro-bind', '/dev/null', secret.path);
  }
  if (plan.root) {
    args.push('--bind', plan.root, plan.root);
    for (const real of existingProtected(plan.root)) args.push('--ro-bind', real, real);
  }
  args.push('--chdir', plan.cwd, '--clearenv');
  for (const [name, value] of Object.entries(plan.env)) args.push('--setenv', name, value);
  return args;
}
