/**
 * Attacks on the one path module (platform-path.ts). On Linux: a differential test against the
 * code containment had before it (63f70f3's workspace-path.ts, fork-files' and live replay's
 * checks, copied here verbatim as the oracle) over random hostile paths — `..`, `.`, trailing
 * slashes, `/proc/self/cwd/..`, a root of `/`, a sibling sharing a prefix, Unicode forms, NUL,
 * very long paths — and real symbolic links. On Windows' rules: what the module's own tests did
 * not try (case mappings NTFS does not share, names ending in dots or spaces mid-path, device
 * names with spaces before the extension).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isInsidePath, samePath, windowsPathProblem } from '../../src/core/workspace/platform-path';
import { PathError, resolveWorkspacePath, type RealPathPort } from '../../src/core/workspace/workspace-path';

// ---- The oracle: 63f70f3's code, as it was. ----
function oldIsInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
async function oldResolve(root: string, input: string, port: RealPathPort): Promise<string> {
  if (input.length === 0) throw new PathError('The path is empty.');
  if (input.includes('\0')) throw new PathError('The path contains a NUL byte.');
  if (input.length > 4_096) throw new PathError('The path is too long.');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input)) throw new PathError(`Use a workspace path, not a URL: ${input}`);
  if (input === '~' || input.startsWith('~/'))
    throw new PathError('Home-folder paths (~) are outside the workspace; use a path relative to the workspace root.');
  if (/%2e|%2f|%5c/i.test(input))
    throw new PathError('The path contains percent-encoded characters; give it as plain text.');
  if (input.includes('\\')) throw new PathError('Use forward slashes (/) in paths.');
  const realRoot = (await port.realpath(root)) ?? root;
  const absolute = path.resolve(root, input);
  if (!oldIsInside(root, absolute) && !oldIsInside(realRoot, absolute))
    throw new PathError(`${input} is outside the workspace.`);
  let existing = absolute;
  let missing: string[] = [];
  let real: string | undefined;
  let links = 0;
  for (;;) {
    real = await port.realpath(existing);
    if (real !== undefined) break;
    const target = await port.readlink?.(existing);
    if (target !== undefined) {
      if (++links > 40) throw new PathError(`${input} goes through too many symbolic links.`);
      existing = path.resolve(path.dirname(existing), target);
      continue;
    }
    const parent = path.dirname(existing);
    if (parent === existing) throw new PathError(`${input} cannot be resolved.`);
    missing = [path.basename(existing), ...missing];
    existing = parent;
  }
  const resolved = path.join(real, ...missing);
  if (!oldIsInside(realRoot, resolved))
    throw new PathError(`${input} leads outside the workspace (through a symbolic link).`);
  return resolved;
}
/** fork-files' old `inside` (string prefix) and live replay's old link check. */
const oldForkInside = (root: string, real: string, orSame: boolean) =>
  (orSame && real === root) || real.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`);
const newForkInside = (root: string, real: string, orSame: boolean) =>
  samePath(root, real) ? orSame : isInsidePath(root, real);

/** A seeded generator: the same inputs on every run. */
function generator(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % below;
  };
}

const SEGMENTS = [
  'ws',
  'ws-evil',
  'ws.',
  'WS',
  '..',
  '.',
  '',
  '...',
  '..foo',
  'a',
  'b',
  'link-out',
  'link-in',
  'loop',
  'dangling',
  'proc',
  'self',
  'cwd',
  'é',
  'e\u0301',
  'ｗｓ',
  ' ',
  'x\u0000',
  'a\\..',
  '%2e%2e',
  '~',
  'file.txt',
];
const ROOTS = ['/', '/ws', '/ws/', '/ws-evil', '/ws/a', '//ws', '/ws/./a/..', '/é', '/e\u0301'];

function randomPath(random: (below: number) => number): string {
  const absolute = random(3) === 0;
  const parts = Array.from({ length: 1 + random(7) }, () => SEGMENTS[random(SEGMENTS.length)]!);
  const joined = parts.join('/') + (random(4) === 0 ? '/' : '');
  return absolute ? `/${joined}` : joined;
}

describe('adversarial: the path module on Linux does what the old code did', () => {
  it('isInside, holdsHome and live replay agree with the old rule on 20,000 random pairs', () => {
    const random = generator(3535);
    for (let round = 0; round < 20_000; round++) {
      const root = random(2) ? ROOTS[random(ROOTS.length)]! : `/${randomPath(random)}`;
      const candidate = random(5) === 0 ? '/proc/self/cwd/../' + randomPath(random) : `/${randomPath(random)}`;
      assert.equal(isInsidePath(root, candidate), oldIsInside(root, candidate), `${root} ∋ ${candidate}`);
    }
  });

  it('fork files: the new check agrees with the old on real (normalized) paths; `..name` is the one difference', () => {
    const random = generator(77);
    const differences: string[] = [];
    for (let round = 0; round < 20_000; round++) {
      const root = path.resolve(random(2) ? ROOTS[random(ROOTS.length)]! : `/${randomPath(random)}`);
      const real = path.resolve(`/${randomPath(random)}`);
      const orSame = random(2) === 0;
      if (oldForkInside(root, real, orSame) !== newForkInside(root, real, orSame)) differences.push(`${root} ${real}`);
    }
    // The old prefix check took `/ws/..foo` as inside; path.relative's rule (every other place's) does not.
    for (const difference of differences) assert.match(difference, /\/\.\.[^/]/, difference);
    // Never the other way: nothing the old check kept out is let in.
    for (let round = 0; round < 20_000; round++) {
      const root = path.resolve(`/${randomPath(random)}`);
      const real = path.resolve(`/${randomPath(random)}`);
      if (newForkInside(root, real, true)) assert.ok(oldForkInside(root, real, true), `${root} ${real}`);
    }
  });

  describe('resolveWorkspacePath against the old one on a real folder with links', () => {
    let base: string;
    let port: RealPathPort;
    before(() => {
      base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'atk-paths-')));
      const ws = path.join(base, 'ws');
      for (const folder of ['ws/a', 'ws/b', 'ws-evil', 'ws/..foo'])
        fs.mkdirSync(path.join(base, folder), { recursive: true });
      fs.writeFileSync(path.join(base, 'ws-evil', 'PROOF_secret'), 'secret');
      fs.writeFileSync(path.join(ws, 'a', 'file.txt'), 'x');
      fs.linkSync(path.join(base, 'ws-evil', 'PROOF_secret'), path.join(ws, 'hard-link'));
      fs.symlinkSync('../ws-evil', path.join(ws, 'link-out'));
      fs.symlinkSync('a', path.join(ws, 'link-in'));
      fs.symlinkSync('loop', path.join(ws, 'loop'));
      fs.symlinkSync('../ws-evil/new-dir/x', path.join(ws, 'dangling'));
      fs.symlinkSync('/proc/self/cwd', path.join(ws, 'proc'));
      port = {
        realpath: async (absolute) => {
          try {
            return fs.realpathSync(absolute);
          } catch {
            return undefined;
          }
        },
        readlink: async (absolute) => {
          try {
            return fs.readlinkSync(absolute);
          } catch {
            return undefined;
          }
        },
      };
    });
    after(() => fs.rmSync(base, { recursive: true, force: true }));

    it('gives the same answer (path or refusal) for 5,000 random inputs and each root spelling', async () => {
      const random = generator(2026);
      const roots = [`${base}/ws`, `${base}/ws/`, `${base}//ws`, `${base}/ws/a/..`];
      const long = 'a/'.repeat(2_100);
      const fixed = [
        '/proc/self/cwd/..',
        'proc/..',
        'link-out/PROOF_secret',
        'dangling',
        '../ws-evil/PROOF_secret',
        `${base}/ws-evil/PROOF_secret`,
        `${base}/ws/../ws-evil`,
        long,
        `${long}x`,
        'ws\u0000',
        '..foo/x',
        'a/./../b/',
      ];
      let escaped = 0;
      for (let round = 0; round < 5_000 + fixed.length; round++) {
        const input = round < fixed.length ? fixed[round]! : randomPath(random);
        const root = roots[random(roots.length)]!;
        const outcome = async (resolve: typeof oldResolve) => {
          try {
            return await resolve(root, input, port);
          } catch (error) {
            assert.ok(error instanceof PathError, String(error));
            return `refused: ${error.message}`;
          }
        };
        const [before, now] = [await outcome(oldResolve), await outcome(resolveWorkspacePath)];
        assert.equal(now, before, `${root} + ${JSON.stringify(input)}`);
        if (!now.startsWith('refused') && !now.startsWith(`${base}/ws/`) && now !== `${base}/ws`) escaped++;
      }
      assert.equal(escaped, 0);
    });
  });
});

describe('adversarial: Windows paths the module had not tried', () => {
  const inside = (root: string, candidate: string) => isInsidePath(root, candidate, 'win32');

  it('a Kelvin sign, an Ohm sign or a dotted I is not the ASCII letter NTFS sees (no JavaScript case mapping)', () => {
    assert.equal(inside('C:\\work', 'C:\\wor\u212A\\secret.txt'), false);
    assert.equal(inside('C:\\\u03a9ork', 'C:\\\u2126ork\\x'), false);
    assert.equal(inside('C:\\ix', 'C:\\\u0130x\\x'), false);
    assert.equal(inside('C:\\Work', 'c:\\WORK\\x'), true, 'ASCII case still folds');
  });

  it('a name ending in dots or spaces mid-path has no reading: never inside', () => {
    assert.equal(inside('C:\\a', 'C:\\x\\a\\...\\..\\a'), false, '`...` is a folder mid-path, not a climb');
    assert.equal(inside('C:\\ws', 'C:\\ws \\secret'), false, '`ws ` mid-path is another folder');
    assert.equal(inside('C:\\ws', 'C:\\ws.\\secret'), false);
    assert.equal(inside('\\\\srv\\share', '\\\\srv\\share.\\x'), false);
  });

  it('spellings of the same and of other places', () => {
    assert.equal(inside('C:\\ws', 'c:/WS/../ws2'), false);
    assert.equal(inside('C:\\ws', '\\\\?\\C:\\ws\\..\\x'), false);
    assert.equal(inside('C:\\ws', '\\\\?\\C:\\ws\\x'), false);
    assert.equal(inside('C:\\ws', '\\\\localhost\\c$\\ws\\x'), false);
    assert.equal(inside('C:\\ws', '\\??\\C:\\ws\\x'), false);
    assert.equal(inside('C:\\ws', 'C:/ws\\sub/..\\..\\ws-evil'), false);
    assert.equal(inside('C:\\ws\\', 'C:\\ws-evil\\x'), false);
    assert.equal(inside('C:\\', 'c:\\anything'), true);
    assert.equal(inside('C:\\', 'D:\\anything'), false);
  });

  const devices = [
    'NUL .txt',
    'con  .log',
    'lpt1 .x',
    'CONIN$',
    'CLOCK$',
    'COM¹',
    'LPT0',
    'NUL.txt.txt',
    'AUX:',
    'nul ',
  ];
  for (const name of devices)
    it(`refuses the device name ${JSON.stringify(name)} in a tool's path`, () =>
      assert.ok(windowsPathProblem(`src/${name}`), name));

  for (const name of ['COM⁴', 'console .txt', 'nullish.txt', 'auxiliary'])
    it(`lets ${JSON.stringify(name)} through (not a device)`, () => assert.equal(windowsPathProblem(name), undefined));
});
