/**
 * How every bash OpenAgent starts for a command, a hook or a job is started: without the user's
 * start-up files. Bash reads ~/.bashrc even for `bash -c` when its stdin is a socket (Node's
 * stdio pipes are socket pairs) and SHLVL is unset: a user's rc file would then run inside every
 * hook and command — pyenv's init rehashing into a read-only sandbox and printing into a hook's
 * block reason, or exporting keys the scrubbed environment left out.
 */
export const BASH_WITHOUT_STARTUP_FILES: readonly string[] = ['--norc', '--noprofile'];
