/**
 * The checks behind "a deny or approver rule sees a command however it is spelled" for words
 * decided only at run time and git aliases (deny-run-time.ts): the prefix tests over rule
 * patterns, the meaning walk with run-time words, git's own commands.
 */
import assert from 'node:assert/strict';
import { mayDenyByMeaning, type RunTimeWord } from '../../../../src/core/policy/deny-grammar';
import { gitIndirection } from '../../../../src/core/policy/git-commands';
import { mayMatchStartingWith, mayMatchWordsStartingWith } from '../../../../src/core/policy/rule-patterns';

/** Words as the run-time check sees them: `$…` stays one word, `@…` may become many. */
function words(line: string): RunTimeWord[] {
  return line.split(' ').map((text) => {
    if (text.startsWith('@')) return { text, open: 'many', prefix: text.slice(1) };
    const cut = text.indexOf('$');
    return cut < 0 ? { text, prefix: text } : { text, open: 'one', prefix: text.slice(0, cut) };
  });
}

describe('run-time words against deny rules', () => {
  it('mayMatchStartingWith: some text starting with the prefix matches the glob', () => {
    for (const [pattern, prefix] of [
      ['git push*', 'git '],
      ['git push*', 'git pu'],
      ['git push*', 'git push origin --force'],
      ['git push*', ''],
      ['*push*', 'echo anything'],
      ['a*b*c', 'axxb'],
      ['git push', 'git p'],
      ['npm publish', 'npm publish'],
    ])
      assert.ok(mayMatchStartingWith(pattern!, prefix!), `${pattern} / ${prefix}`);
    for (const [pattern, prefix] of [
      ['git push*', 'git status '],
      ['git push*', 'echo '],
      ['git push*', 'git -C . '],
      ['git push', 'git push '],
      ['a*b', 'b'],
    ])
      assert.ok(!mayMatchStartingWith(pattern!, prefix!), `${pattern} / ${prefix}`);
  });

  it('mayMatchStartingWith stays linear on hostile patterns', () => {
    const pattern = `${'a*'.repeat(50_000)}b`;
    const started = Date.now();
    assert.ok(mayMatchStartingWith(pattern, 'a'.repeat(100_000)));
    assert.ok(!mayMatchStartingWith(pattern, 'b'.repeat(100_000)));
    // Generous: a backtracking check would not finish at all.
    assert.ok(Date.now() - started < 5_000);
  });

  it('mayMatchWordsStartingWith: word by word, a rest taking any words', () => {
    assert.ok(mayMatchWordsStartingWith('git push*', ['git'], ''));
    assert.ok(mayMatchWordsStartingWith('git push*', ['git'], 'pu'));
    assert.ok(mayMatchWordsStartingWith('git push*', ['git', 'push', 'origin'], 'x'));
    assert.ok(mayMatchWordsStartingWith('git * push', ['git', 'a', 'b'], 'pu'));
    assert.ok(mayMatchWordsStartingWith('npm run test:*', ['npm', 'run'], 'te'));
    // An exact rule is met by an empty expansion (`git status $EMPTY`), not by another word.
    assert.ok(mayMatchWordsStartingWith('git status', ['git', 'status'], ''));
    assert.ok(!mayMatchWordsStartingWith('git status', ['git', 'status'], 'x'));
    assert.ok(!mayMatchWordsStartingWith('git push*', ['git', 'status'], ''));
    assert.ok(!mayMatchWordsStartingWith('git push*', ['git'], 'st'));
    assert.ok(!mayMatchWordsStartingWith('git diff*', ['git'], 'difft'));
  });

  it('mayDenyByMeaning: options anywhere, a run-time word as option, value or operand', () => {
    for (const line of [
      'git $SUB',
      'git -C . $SUB',
      'git -C $D $SUB',
      'git --no-pager pu$X',
      'git @',
      'git -C . @',
      'git -c a=b @',
      'git push $R',
      'npm pu$X',
      'rm $F x',
      'rm -r @',
    ])
      assert.ok(
        ['git push*', 'npm publish*', 'rm -rf*'].some((rule) => mayDenyByMeaning(rule, words(line))),
        line,
      );
    for (const line of [
      'git status $X',
      'git checkout $BRANCH',
      'git -C $D status',
      'git -C . st$X',
      'git log @',
      'git status -- $X',
      'npm test -- $X',
      'npm run $S',
      'git --no-pager st@',
      'rm -- $F',
      'git -c a=b @x',
    ])
      assert.ok(!['git push*', 'npm publish*'].some((rule) => mayDenyByMeaning(rule, words(line))), line);
    // A rule's option may come from a run-time word; without one, the literal options decide.
    assert.ok(mayDenyByMeaning('rm -rf*', words('rm -r $X')));
    assert.ok(!mayDenyByMeaning('rm -rf*', words('rm -r -- $X')));
    assert.ok(!mayDenyByMeaning('rm -rf*', words('rm -r build')));
  });

  it('gitIndirection: git own commands pass, aliases and other names do not', () => {
    const said = (line: string, assignments: string[] = []) =>
      gitIndirection({ args: line.split(' ').filter(Boolean), assignments });
    for (const line of [
      'push',
      'status',
      '-C . status',
      '--no-pager log',
      '-c user.name=x commit',
      '--git-dir=x status',
      '--git-dir x status',
      'mergetool',
      'bisect start',
      'submodule update',
      '',
    ])
      assert.equal(said(line), undefined, line);
    assert.match(said('p') ?? '', /not one of git's own commands.*git-p/);
    assert.match(said('-C . frob') ?? '', /git frob/);
    assert.match(said('svn dcommit') ?? '', /git svn/);
    assert.match(said('-c alias.p=push p') ?? '', /alias/);
    assert.match(said('-c ALIAS.st=push status') ?? '', /alias/);
    assert.match(said('--config-env=alias.p=E p') ?? '', /alias/);
    assert.match(said('--config-env alias.p=E p') ?? '', /alias/);
    assert.match(said('-c include.path=x status') ?? '', /alias/);
    assert.match(said('status', ['GIT_CONFIG_COUNT=1']) ?? '', /GIT_CONFIG_COUNT/);
    assert.match(said('status', ['GIT_CONFIG_KEY_0=alias.p']) ?? '', /GIT_CONFIG_KEY_0/);
    assert.match(said('status', ['GIT_CONFIG_PARAMETERS=x']) ?? '', /GIT_CONFIG_PARAMETERS/);
    assert.match(said('--exec-path=/tmp mergetool') ?? '', /exec path/);
    assert.match(said('mergetool', ['GIT_EXEC_PATH=/tmp']) ?? '', /exec path/);
    // Everyday extensions are git's (an alias cannot take an installed one's name), unless the
    // command brings its own PATH or defines the alias itself.
    assert.equal(said('lfs pull'), undefined);
    assert.equal(said('flow feature start x'), undefined);
    assert.match(said('lfs pull', ['PATH=./bin:/usr/bin']) ?? '', /git lfs/);
    assert.match(said('-c alias.lfs=push lfs') ?? '', /alias/);
    // An unknown option is read with and without a value: either reading may name the alias.
    assert.match(said('--frob x status') ?? '', /git x/);
    assert.equal(said('--frob status'), undefined);
  });

  it('gitIndirection stays linear over many unknown options', () => {
    const started = Date.now();
    assert.equal(gitIndirection({ args: [...Array(50_000).fill('--frob'), 'status'], assignments: [] }), undefined);
    assert.ok(Date.now() - started < 5_000);
  });
});
