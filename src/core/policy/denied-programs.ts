/**
 * `bash.deny` rules see a program however it is named (SPEC 4.3): `curl`, `/usr/bin/curl`,
 * `./curl`, `../bin/curl/`, `\curl`, `c''url`, behind wrappers (`env -i`, `exec`, `nice`,
 * `timeout 5`, `sudo`…, themselves named by any path) and behind programs that run the command
 * in their arguments (`busybox curl`, `strace curl`, `flock f curl`, `find -exec curl`, `trap
 * 'curl x' EXIT`…). A deny rule is matched against the words as written, against the program
 * with its arguments, and against both with every word that names a program cut to its base
 * name (case folded, `.exe` dropped: on a case-insensitive disk `CURL.EXE` runs curl). A program
 * named only at run time cannot be shown not to be denied: it is refused (`deny wins`).
 *
 * Allow rules stay as strict as they were (policy-rules.ts matches them as written): `./git`
 * planted in the workspace is not the `git` a `git status*` rule allows.
 */
import { deniesByMeaning } from './deny-grammar';
import { matchesPattern, matchesWords } from './rule-patterns';
import { analyseCommand, type CommandSegment } from './shell-command';
import { basename } from './shell-wrappers';

/** What a deny list says about one segment. */
export type DenyFinding = { denied: string; words: string[] } | { unknown: string } | undefined;

/**
 * Programs that run a command found in their arguments, which the analyser does not take apart
 * option by option: for deny rules, any argument may start that command. (`find` only after
 * `-exec` and its kin.) A word holding spaces is also read as a command line (`su -c 'curl x'`).
 */
const LAUNCHERS = new Set([
  'busybox',
  'toybox',
  'chrt',
  'ionice',
  'taskset',
  'numactl',
  'prlimit',
  'setarch',
  'linux32',
  'linux64',
  'flock',
  'strace',
  'ltrace',
  'valgrind',
  'watch',
  'su',
  'runuser',
  'sg',
  'script',
  'unbuffer',
  'firejail',
  'chroot',
  'fakeroot',
  'fakechroot',
  'proot',
  'nsenter',
  'unshare',
  'setpriv',
  'systemd-run',
  'pkexec',
  'catchsegv',
  'parallel',
  'trap',
  'hash',
  'torsocks',
  'proxychains',
  'proxychains4',
  'tsocks',
  'xvfb-run',
  'dbus-launch',
  'dbus-run-session',
  'chpst',
  'cgexec',
  'nocache',
  'eatmydata',
  'faketime',
  'tini',
  'dumb-init',
  'ssh-agent',
  'expect',
  'entr',
  'at',
  'batch',
  'daemonize',
  'start-stop-daemon',
  'flatpak-spawn',
  'caffeinate',
  'sandbox-exec',
  'bwrap',
  'ssh',
  'find',
]);
const FIND_RUNNERS = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const MAX_DEPTH = 4;

/** The name a program word is known by: its base name, case folded, without `.exe`. */
export function programName(word: string): string {
  return basename(word)
    .toLowerCase()
    .replace(/\.(exe|com|bat|cmd)$/, '');
}

/** The first deny pattern matching the segment, or why it cannot be told (see the file comment). */
export function deniedSegment(patterns: readonly string[], segment: CommandSegment, depth = 0): DenyFinding {
  if (patterns.length === 0) return undefined;
  const found = matching(patterns, segment) ?? launched(patterns, segment, depth);
  if (found !== undefined || !segment.readsCommands) return found;
  return { unknown: `\`${segment.program}\` runs the commands it reads from its input, known only when it runs` };
}

function matching(patterns: readonly string[], segment: CommandSegment): DenyFinding {
  for (const words of candidates(segment)) {
    const denied = patterns.find((pattern) => matchesPattern(pattern, words.join(' ')) || matchesWords(pattern, words));
    if (denied !== undefined) return { denied, words };
  }
  // What the rule means, however the options are spelled or placed (deny-grammar.ts).
  for (const index of segment.programWords) {
    const words = segment.argv.slice(index).map((word, at) => (at === 0 ? programName(word) : word));
    const denied = patterns.find((pattern) => deniesByMeaning(pattern, words));
    if (denied !== undefined) return { denied, words };
  }
  return undefined;
}

/** The segment's words as written, from its program on, and both with program words by name. */
function candidates(segment: CommandSegment): string[][] {
  const { argv } = segment;
  const named = argv.map((word, index) => (segment.programWords.includes(index) ? programName(word) : word));
  const list = [argv, named];
  for (const index of segment.programWords) list.push(argv.slice(index), named.slice(index));
  return list;
}

/**
 * For a launcher: each argument as the start of the command it may run. A launcher among them
 * (`strace nice busybox curl`) needs no walk of its own: every later start is tried here.
 */
function launched(patterns: readonly string[], segment: CommandSegment, depth: number): DenyFinding {
  const index = segment.programIndex;
  const name = index < 0 ? '' : programName(segment.argv[index] ?? '');
  if (!LAUNCHERS.has(name)) return undefined;
  let from = index + 1;
  if (name === 'find') {
    const runner = segment.argv.findIndex((word, at) => at > index && FIND_RUNNERS.has(word));
    if (runner < 0) return undefined;
    from = runner + 1;
  }
  for (let start = from; start < segment.argv.length; start += 1) {
    const word = segment.argv[start] ?? '';
    // `{}` is find's and xargs's placeholder, not a brace expansion.
    if (segment.facts[start]?.computed && word !== '{}')
      return { unknown: `\`${name}\` runs a command whose words are decided only at run time (\`${word}\`)` };
    const inner: CommandSegment = {
      ...segment,
      argv: segment.argv.slice(start),
      facts: segment.facts.slice(start),
      programIndex: 0,
      programWords: [0],
    };
    const finding = matching(patterns, inner);
    if (finding !== undefined) return finding;
    if (/\s/.test(word)) {
      const nested = commandLineIn(patterns, word, depth + 1);
      if (nested !== undefined) return nested;
    }
  }
  return undefined;
}

/** A launcher's argument read as a command line of its own (`su -c 'curl x'`). */
function commandLineIn(patterns: readonly string[], line: string, depth: number): DenyFinding {
  if (depth > MAX_DEPTH) return { unknown: 'commands are nested too deeply to check' };
  const analysis = analyseCommand(line);
  if (!analysis.ok) return analysis.runtimeProgram ? { unknown: analysis.reason } : undefined;
  for (const segment of analysis.segments) {
    const finding = deniedSegment(patterns, segment, depth);
    if (finding !== undefined) return finding;
  }
  return undefined;
}
