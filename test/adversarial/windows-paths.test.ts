/**
 * Hostile Windows paths against the workspace's containment, with Windows' rules (path.win32)
 * and a file-system port that behaves like NTFS: names compared without case, 8.3 short names
 * expanded by realpath, junctions followed. No Windows machine runs this: it is Linux, reasoning
 * about what Windows would open. Each case asserts the exact outcome.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { isInsidePath } from '../../src/core/workspace/platform-path';
import { PathError, resolveWorkspacePath, type RealPathPort } from '../../src/core/workspace/workspace-path';

const win = path.win32;

/**
 * An NTFS-like machine: `entries` exist (with their real case), `links` are junctions (from →
 * to), `shortNames` are 8.3 aliases (the short path → the long name in the same folder).
 */
function ntfs(
  entries: string[],
  links: Record<string, string> = {},
  shortNames: Record<string, string> = {},
): RealPathPort {
  const existing = new Map(entries.map((entry) => [entry.toLowerCase(), entry]));
  const junctions = new Map(Object.entries(links).map(([from, to]) => [from.toLowerCase(), to]));
  const aliases = new Map(Object.entries(shortNames).map(([short, long]) => [short.toLowerCase(), long]));
  const realpath = (absolute: string, depth = 0): string | undefined => {
    if (depth > 40) return undefined;
    const [drive, ...names] = win.normalize(absolute).replace(/\\+$/, '').split('\\');
    let current = `${drive!.toUpperCase()}`;
    for (const name of names) {
      const spelled = `${current}\\${name}`.toLowerCase();
      const candidate = aliases.has(spelled) ? `${current}\\${aliases.get(spelled)}` : `${current}\\${name}`;
      const found = existing.get(candidate.toLowerCase());
      if (found === undefined) return undefined;
      const target = junctions.get(found.toLowerCase());
      if (target !== undefined) {
        const followed = realpath(target, depth + 1);
        if (followed === undefined) return undefined;
        current = followed;
      } else current = found;
    }
    return current;
  };
  return { realpath: async (absolute) => realpath(absolute) };
}

const ROOT = 'C:\\Users\\Me\\Repo';
const machine = ntfs(
  [
    'C:\\Users',
    'C:\\Users\\Me',
    ROOT,
    `${ROOT}\\src`,
    `${ROOT}\\src\\a.ts`,
    `${ROOT}\\.git`,
    `${ROOT}\\.git\\config`,
    `${ROOT}\\secret.txt`,
    `${ROOT}\\outside-link`,
    `${ROOT}\\inside-link`,
    'C:\\Users\\Me\\RepoSibling',
    'D:\\Outside',
    'D:\\Outside\\victim.txt',
  ],
  { [`${ROOT}\\outside-link`]: 'D:\\Outside', [`${ROOT}\\inside-link`]: `${ROOT}\\src` },
  { 'C:\\Users\\ME~1': 'Me', [`${ROOT}\\GIT~1`]: '.git', 'C:\\Users\\Me\\REPOSI~1': 'RepoSibling' },
);
const resolve = (input: string, root = ROOT) => resolveWorkspacePath(root, input, machine, 'win32');

async function refused(input: string, reason: RegExp, root = ROOT): Promise<void> {
  await assert.rejects(resolve(input, root), (error: unknown) => {
    assert.ok(error instanceof PathError, String(error));
    assert.match(error.message, reason);
    return true;
  });
}

describe('adversarial: Windows paths against the workspace', () => {
  it('resolves plain paths, and other spellings of them to the real name', async () => {
    assert.equal(await resolve('src/a.ts'), `${ROOT}\\src\\a.ts`);
    assert.equal(await resolve('C:/users/ME/repo/SRC/A.TS'), `${ROOT}\\src\\a.ts`);
    assert.equal(await resolve('c:/Users/Me/Repo/src/new.ts'), `${ROOT}\\src\\new.ts`);
    // A protected name in another case resolves to the real `.git`: what checks names sees `.git`.
    assert.equal(await resolve('.GIT/Config'), `${ROOT}\\.git\\config`);
    assert.equal(await resolve('inside-link/a.ts'), `${ROOT}\\src\\a.ts`);
  });

  it('keeps other drives, siblings and climbs out', async () => {
    await refused('D:/Outside/victim.txt', /outside the workspace/);
    await refused('../RepoSibling/x', /outside the workspace/);
    await refused('C:/Users/Me/RepoSibling/x', /outside the workspace/);
    await refused('/Users/Me/x', /outside the workspace/);
    await refused('src/../../x', /outside the workspace/);
  });

  it('refuses a junction leading to another drive', async () => {
    await refused('outside-link/victim.txt', /leads outside the workspace/);
    await refused('outside-link/new-file.txt', /leads outside the workspace/);
  });

  it('refuses streams, devices, drive-relative, UNC and device paths', async () => {
    await refused('secret.txt:hidden', /alternate data stream/);
    await refused('.git::$INDEX_ALLOCATION/config', /alternate data stream/);
    await refused('src/a.ts::$DATA', /alternate data stream/);
    await refused('C:secret.txt', /drive letter without a slash/);
    await refused('D:victim.txt', /drive letter without a slash/);
    await refused('NUL', /device name/);
    await refused('src/con.ts', /device name/);
    await refused('out/COM1.log', /device name/);
    await refused('aux', /device name/);
    await refused('//server/share/x', /UNC/);
    await refused('//?/C:/Users/Me/Repo/src/a.ts', /Device/);
    await refused('//./C:/Users/Me/Repo/src/a.ts', /Device/);
  });

  it('refuses trailing dots and spaces, which would open another name', async () => {
    await refused('secret.txt.', /trailing dots and spaces/);
    await refused('secret.txt ', /trailing dots and spaces/);
    await refused('.git./config', /trailing dots and spaces/);
    await refused('.git. ./config', /trailing dots and spaces/);
  });

  it('refuses short names in a given path; a short-named root is compared after realpath', async () => {
    await refused('GIT~1/config', /short \(8\.3\) name/);
    await refused('../REPOSI~1/x', /short \(8\.3\) name/);
    // The workspace opened through a short name: the file system port expands it.
    assert.equal(await resolve('src/a.ts', 'C:\\Users\\ME~1\\Repo'), `${ROOT}\\src\\a.ts`);
    await refused('../RepoSibling/x', /outside the workspace/, 'C:\\Users\\ME~1\\Repo');
  });

  it('contains only what a hostile mix normalizes to under the root (1000 random paths)', async () => {
    const pieces = ['src', 'SRC', '..', '.', 'a.ts', 'outside-link', 'Inside-Link', 'new'];
    let state = 7;
    const random = (below: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % below;
    };
    let accepted = 0;
    for (let round = 0; round < 1000; round++) {
      const input = Array.from({ length: 1 + random(5) }, () => pieces[random(pieces.length)]!).join('/');
      let result: string | undefined;
      try {
        result = await resolve(input);
      } catch (error) {
        assert.ok(error instanceof PathError, String(error));
      }
      const escapes = /outside-link/i.test(win.normalize(`${ROOT}\\${input}`));
      if (result !== undefined) {
        accepted++;
        assert.ok(isInsidePath(ROOT, result, 'win32'), `${input} → ${result}`);
        assert.ok(!escapes, `${input} went through the junction to D: and was accepted as ${result}`);
      } else if (isInsidePath(ROOT, win.resolve(ROOT, input), 'win32') && !escapes) {
        assert.fail(`${input} is inside and was refused`);
      }
    }
    assert.ok(accepted > 100, `accepted ${accepted}`);
  });
});
