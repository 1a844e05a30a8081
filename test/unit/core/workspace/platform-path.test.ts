/**
 * The one path module, with Windows' rules (path.win32 cases, run on Linux) and POSIX's kept as
 * they were. The property test builds random paths from hostile segments and checks containment
 * against the normalized form, computed here independently through path.win32.normalize.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import {
  isInsidePath,
  samePath,
  windowsPathKey,
  windowsPathProblem,
} from '../../../../src/core/workspace/platform-path';

describe('platform-path: Windows containment', () => {
  const inside = (root: string, candidate: string) => isInsidePath(root, candidate, 'win32');

  it('compares drive letters and names without case, with either separator', () => {
    assert.equal(inside('C:\\Users\\Me\\Repo', 'c:\\users\\me\\repo\\src\\a.ts'), true);
    assert.equal(inside('c:/users/me/repo', 'C:\\USERS\\ME\\REPO'), true);
    assert.equal(inside('C:\\Users\\Me\\Repo', 'C:/Users/Me/Repo/sub/../file'), true);
    assert.equal(samePath('C:\\Repo\\', 'c:/repo', 'win32'), true);
  });

  it('keeps other drives, siblings with a shared prefix and climbs outside', () => {
    assert.equal(inside('C:\\Repo', 'D:\\Repo\\a'), false);
    assert.equal(inside('C:\\Repo', 'C:\\Repository\\a'), false);
    assert.equal(inside('C:\\Repo', 'C:\\Repo\\..\\Other'), false);
    assert.equal(inside('C:\\Repo', 'C:\\Repo\\a\\..\\..\\Other'), false);
    assert.equal(inside('C:\\', 'C:\\..\\..\\Windows'), true, 'C:\\.. is C:\\ itself');
  });

  it('gives no reading to names ending in dots or spaces: never inside (Windows reads them by place)', () => {
    assert.equal(samePath('C:\\Repo\\secret.txt.', 'C:\\Repo\\secret.txt', 'win32'), false);
    assert.equal(samePath('C:\\Repo\\.git  ', 'C:\\Repo\\.GIT', 'win32'), false);
    assert.equal(inside('C:\\Repo', 'C:\\Repo \\x'), false, '`Repo ` mid-path is another folder');
    assert.equal(inside('C:\\a', 'C:\\x\\a\\...\\..\\a'), false, '`...` mid-path is a folder, not a climb');
    assert.equal(inside('C:\\Repo', 'C:\\Repo\\.. \\Other'), false);
    assert.equal(inside('C:\\Repo', 'C:\\Repo\\...\\x'), false, '"..." is taken as a climb');
    assert.equal(inside('C:\\Repo\\a', 'C:\\Repo\\a\\...\\..\\x'), false);
  });

  it('compares UNC shares as volumes and never places \\\\?\\ or \\\\.\\ paths inside', () => {
    assert.equal(inside('\\\\Server\\Share\\Repo', '\\\\server\\share\\repo\\a'), true);
    assert.equal(inside('\\\\server\\share\\repo', '\\\\server\\other\\repo\\a'), false);
    assert.equal(inside('\\\\server\\share', '\\\\server\\share\\..\\..\\x'), true, 'no climbing above a share');
    assert.equal(inside('C:\\Repo', '\\\\?\\C:\\Repo\\a'), false);
    assert.equal(inside('C:\\Repo', '\\\\.\\C:\\Repo\\a'), false);
    assert.equal(inside('\\\\?\\C:\\Repo', '\\\\?\\C:\\Repo\\a'), false);
    assert.equal(inside('C:\\Repo', '\\\\localhost\\C$\\Repo\\a'), false, 'an admin share is another volume');
  });

  it('refuses relative, drive-relative and rootless paths', () => {
    assert.equal(inside('C:\\Repo', 'Repo\\a'), false);
    assert.equal(inside('C:\\Repo', 'C:Repo\\a'), false);
    assert.equal(inside('C:\\Repo', '\\Repo\\a'), false);
    assert.equal(windowsPathKey('C:\\a\0b'), undefined);
  });
});

describe('platform-path: POSIX stays as it was', () => {
  const inside = (root: string, candidate: string) => isInsidePath(root, candidate, 'posix');

  it('is case-sensitive and takes backslashes as part of a name', () => {
    assert.equal(inside('/home/me/repo', '/home/me/repo/src'), true);
    assert.equal(inside('/home/me/repo', '/home/me/Repo/src'), false);
    assert.equal(inside('/home/me/repo', '/home/me/repo/a\\..\\..\\x'), true);
    assert.equal(inside('/home/me/repo', '/home/me/repository'), false);
    assert.equal(inside('/home/me/repo', '/home/me/repo/../x'), false);
    assert.equal(inside('/', '/etc'), true);
  });

  it('matches the old path.relative rule on many pairs', () => {
    const old = (root: string, candidate: string) => {
      const relative = path.posix.relative(root, candidate);
      return relative === '' || (!relative.startsWith('..') && !path.posix.isAbsolute(relative));
    };
    const names = ['a', 'b', '..', '.', 'a b', '..a', 'A'];
    for (let seed = 1; seed < 400; seed++) {
      const pick = (n: number) => names[(seed * 7 + n * 13) % names.length]!;
      const root = `/${pick(1)}/${pick(2)}`;
      const candidate = `/${pick(3)}/${pick(4)}/${pick(5)}`;
      assert.equal(inside(root, candidate), old(root, candidate), `${root} ${candidate}`);
    }
  });
});

describe('platform-path: a random Windows path is inside iff its normalized form is', () => {
  // Hostile segments: climbs, trailing dots and spaces, case, streams, devices, short names, both separators.
  const segments = [
    '..',
    '.',
    'repo',
    'REPO',
    'repo.',
    'repo ',
    'src',
    '.. ',
    '...',
    'nul',
    'PROGRA~1',
    'a:b',
    'x.txt.',
    '',
  ];
  const separators = ['\\', '/'];

  /** Independent oracle: strip each name as Windows does, then let path.win32.normalize apply the climbs. */
  function oracleInside(root: string, candidate: string): boolean {
    let unreadable = false;
    const clean = (p: string) =>
      path.win32
        .normalize(
          p
            .split(/[\\/]/)
            .map((name, at) => {
              if (at === 0 || name === '.' || name === '..') return name;
              // A name ending in dots or spaces has no sure reading: the path is outside everything.
              if (/[. ]$/.test(name)) unreadable = true;
              return name;
            })
            .join('\\'),
        )
        .toLowerCase()
        .replace(/\\$/, '');
    const normalRoot = clean(root);
    const normalCandidate = clean(candidate);
    if (unreadable) return false;
    return normalCandidate === normalRoot || normalCandidate.startsWith(`${normalRoot}\\`);
  }

  it('holds for 5000 random paths', () => {
    let state = 35;
    const random = (below: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % below;
    };
    const root = 'C:\\Work\\Repo';
    let insideCount = 0;
    for (let round = 0; round < 5000; round++) {
      let candidate = random(2) ? 'C:\\work\\repo' : 'c:/WORK';
      const length = 1 + random(6);
      for (let at = 0; at < length; at++) candidate += separators[random(2)]! + segments[random(segments.length)]!;
      const expected = oracleInside(root, candidate);
      if (expected) insideCount++;
      assert.equal(isInsidePath(root, candidate, 'win32'), expected, candidate);
    }
    assert.ok(insideCount > 200 && insideCount < 4500, `both outcomes exercised (${insideCount} inside)`);
  });
});

describe('platform-path: paths Windows reads as something else', () => {
  const refused = [
    ['file.txt:stream', /alternate data stream/],
    ['.git::$INDEX_ALLOCATION/config', /alternate data stream/],
    ['src/a.ts::$DATA', /alternate data stream/],
    ['C:file.txt', /drive letter without a slash/],
    ['//server/share/x', /UNC/],
    ['\\\\?\\C:\\x', /Device/],
    ['//./PhysicalDrive0', /Device/],
    ['NUL', /device name/],
    ['src/con.txt', /device name/],
    ['logs/COM1.log', /device name/],
    ['lpt¹', /device name/],
    ['CONOUT$', /device name/],
    ['secret.txt.', /trailing dots and spaces/],
    ['.env ', /trailing dots and spaces/],
    ['.git./hooks/pre-commit', /trailing dots and spaces/],
    ['PROGRA~1/x', /short \(8\.3\) name/],
    ['GIT~1/config', /short \(8\.3\) name/],
    ['a?b', /characters Windows does not allow/],
    ['a\u0001b', /characters Windows does not allow/],
  ] as const;
  for (const [input, reason] of refused)
    it(`refuses ${JSON.stringify(input)}`, () => assert.match(windowsPathProblem(input) ?? '', reason));

  for (const input of [
    'src/a.ts',
    'C:/Work/Repo/a.ts',
    'C:\\Work\\a.ts',
    '../x',
    'console.log.ts',
    'nullable.ts',
    'com10',
    '.env',
    'a~b/c',
    'a.b.c',
  ])
    it(`lets ${JSON.stringify(input)} through`, () => assert.equal(windowsPathProblem(input), undefined));
});
