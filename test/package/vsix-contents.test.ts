/** The .vsix users install holds only what they need, and nothing secret. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { projectRoot } from '../harness/workbench-session';
import { readZipEntries, type ZipEntry } from '../harness/zip-entries';

const VSIX = path.join(projectRoot, 'openagent.vsix');
const ALLOWED = [
  /^extension\.vsixmanifest$/,
  /^\[Content_Types\]\.xml$/,
  /^extension\/package\.json$/,
  /^extension\/(readme|changelog)\.md$/,
  /^extension\/LICENSE\.txt$/,
  /^extension\/dist\/(extension|cli)\.js$/,
  /^extension\/dist\/webview\/[a-z-]+\.js$/,
  /^extension\/dist\/sql-wasm\.wasm$/,
  /^extension\/dist\/webp_dec\.wasm$/,
  /^extension\/schemas\/[a-z-]+\.schema\.json$/,
  /^extension\/media\/[^/]+\.(css|svg|png)$/,
  /^extension\/media\/walkthrough\/[a-z-]+\.md$/,
  /^extension\/(skills|prompts)\/[a-z0-9-]+\/[A-Z]+\.md$/,
  // A skill's further files (progressive disclosure): references and scripts.
  /^extension\/skills\/[a-z0-9-]+\/(references|scripts)\/[\w.-]+$/,
];
const REQUIRED = [
  'extension/package.json',
  'extension/dist/extension.js',
  'extension/dist/cli.js',
  'extension/dist/webview/chat.js',
  'extension/dist/sql-wasm.wasm',
  'extension/dist/webp_dec.wasm',
  'extension/prompts/coding/PROMPT.md',
  'extension/prompts/work/PROMPT.md',
  'extension/media/icon.png',
];
// Key shapes of the providers we support, plus the keys our own tests use.
const SECRET_PATTERNS = [
  /sk-ant-[A-Za-z0-9_-]{16,}/,
  /sk-(proj-)?[A-Za-z0-9]{32,}/,
  /sk-ant-e2e-secret-key/,
  /sk-openai-test-key/,
];

describe('the packaged .vsix', () => {
  let entries: ZipEntry[];
  let lazyFiles: string[];
  before(async () => {
    if (!fs.existsSync(VSIX)) throw new Error(`${VSIX} is missing: run "npm run package" first`);
    entries = readZipEntries(VSIX);
    const config = (await import(path.join(projectRoot, 'esbuild-config.mjs'))) as {
      LAZY_MODULES: Array<{ file: string }>;
    };
    lazyFiles = config.LAZY_MODULES.map(({ file }) => `extension/dist/${file}`);
  });

  it('contains everything a user needs', () => {
    const names = new Set(entries.map((entry) => entry.name));
    for (const required of [...REQUIRED, ...lazyFiles])
      assert.ok(names.has(required), `${required} is missing from the .vsix`);
  });

  it('contains nothing else: no sources, tests, maps, node_modules or .env files', () => {
    const unexpected = entries
      .map((entry) => entry.name)
      // What the extension loads on first use: exactly esbuild-config.mjs's list.
      .filter((name) => !ALLOWED.some((pattern) => pattern.test(name)) && !lazyFiles.includes(name));
    assert.deepEqual(unexpected, []);
    for (const entry of entries) {
      assert.doesNotMatch(entry.name, /(^|\/)(src|test|node_modules)\/|\.ts$|\.map$|(^|\/)\.env/, entry.name);
    }
  });

  it('carries no API keys in any file', () => {
    for (const entry of entries) {
      const text = entry.read().toString('latin1');
      for (const pattern of SECRET_PATTERNS)
        assert.doesNotMatch(text, pattern, `${entry.name} contains something shaped like a key`);
    }
  });

  it('ships minified bundles without inline source maps', () => {
    for (const name of ['extension/dist/extension.js', ...lazyFiles]) {
      const bundle = entries
        .find((entry) => entry.name === name)!
        .read()
        .toString('utf8');
      assert.doesNotMatch(bundle, /sourceMappingURL=data:/, name);
      // Minified code is almost without whitespace: under 5 % of its characters here, where an
      // unminified build has 15 to 40 % (indentation, spaces around operators, comments).
      const whitespace = (bundle.match(/\s/g) ?? []).length / bundle.length;
      assert.ok(whitespace < 0.1, `${name} is ${Math.round(whitespace * 100)} % whitespace: not minified`);
    }
  });
});
