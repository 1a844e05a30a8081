// Bundles the extension host code, the webview script, the CLI and the in-editor test suites.
// Usage: node esbuild.mjs [--production] [--watch] [--tests]
import * as esbuild from 'esbuild';
import { readFileSync } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { cliBuild, extensionBuild } from './esbuild-config.mjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const withTests = process.argv.includes('--tests');

const common = {
  bundle: true,
  minify: production,
  // Maps only in development builds, never inside the .vsix (.vscodeignore drops them too).
  sourcemap: production ? false : 'linked',
  sourcesContent: false,
  logLevel: 'warning',
  legalComments: 'none',
  // jsonc-parser's main build is UMD, whose require() of its own parts esbuild cannot follow.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
};

/**
 * What keeps the webviews' scripts small and the composer first, checked on every build: no zod
 * (host messages are checked with the parsers generated from the protocol's schemas); no code
 * shared by two scripts of one webview (it would run twice, and a module that must run once —
 * the VS Code API — would fail); nothing that cannot be written into a page.
 * @type {esbuild.Plugin}
 */
const webviewBudget = {
  name: 'webview-budget',
  setup(build) {
    build.onEnd((result) => {
      if (!result.metafile) return;
      const seen = new Map();
      for (const [file, output] of Object.entries(result.metafile.outputs)) {
        if (!file.endsWith('.js')) continue;
        for (const input of Object.keys(output.inputs)) {
          if (input.includes('node_modules/zod/'))
            throw new Error(`${file} bundles ${input}: webviews check host messages with src/protocol/generated/`);
          if (seen.has(input)) throw new Error(`${file} and ${seen.get(input)} both bundle ${input}`);
          seen.set(input, file);
        }
        if (output.imports.some((item) => item.kind === 'import-statement' && !item.external))
          throw new Error(`${file} imports a chunk: it could not be written into a page`);
        if (readFileSync(file, 'utf8').includes('</script'))
          throw new Error(`${file} contains "</script": it could not be written into a page`);
      }
    });
  },
};

/** @type {esbuild.BuildOptions} */
const webviewCommon = {
  ...common,
  outdir: 'dist/webview',
  platform: 'browser',
  format: 'esm',
  target: 'chrome120',
  metafile: true,
  plugins: [webviewBudget],
};

/** @type {esbuild.BuildOptions[]} */
const builds = [
  // dist/extension.js (what activation loads) and the files loaded on first use: esbuild-config.mjs.
  extensionBuild(common),
  cliBuild(common),
  // The webviews are modules, their first script written into the page by the host. The chat's
  // builds and paints the composer; the rest of the chat is a script of its own it imports after
  // that paint (chat-conversation.js), sharing no code with it.
  {
    ...webviewCommon,
    entryPoints: { chat: 'webview/chat/main.ts', 'chat-conversation': 'webview/chat/conversation.ts' },
  },
  { ...webviewCommon, entryPoints: { panel: 'webview/panel/main.ts' } },
];

if (withTests) {
  // Each folder is one in-editor suite: its index.ts (the mocha runner) and its *.test.ts files.
  for (const dir of [
    'test/integration',
    'test/integration-untrusted',
    'test/integration-team',
    'test/integration-sessions',
    'test/integration-lm',
  ]) {
    const suites = (await readdir(dir)).filter((name) => name.endsWith('.test.ts'));
    // The runner executes every *.test.js it finds: no bundle of a deleted test may linger.
    await rm(path.join('out', dir), { recursive: true, force: true });
    builds.push({
      ...common,
      minify: false,
      sourcemap: 'inline',
      entryPoints: [path.join(dir, 'index.ts'), ...suites.map((name) => path.join(dir, name))],
      outdir: path.join('out', dir),
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      // mocha is loaded from node_modules by the runner inside the extension host.
      external: ['vscode', 'mocha'],
    });
  }
}

async function copyAssets() {
  // A production build starts clean so no development leftovers (maps) can reach the .vsix.
  if (production) await rm('dist', { recursive: true, force: true });
  await mkdir('dist', { recursive: true });
  // sql.js loads its WebAssembly at run time; it ships inside the .vsix next to the bundle.
  await copyFile('node_modules/sql.js/dist/sql-wasm.wasm', 'dist/sql-wasm.wasm');
  // The WebP decoder's WebAssembly (src/node/images/webp-decode.ts compiles it itself; nothing is fetched).
  await copyFile('node_modules/@jsquash/webp/codec/dec/webp_dec.wasm', 'dist/webp_dec.wasm');
}

await copyAssets();
if (watch) {
  for (const options of builds) {
    const context = await esbuild.context(options);
    await context.watch();
  }
  console.log('[esbuild] watching');
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
  // The `openagent` bin: runnable as ./dist/cli.js too, not only through npm's bin links.
  await chmod('dist/cli.js', 0o755);
}
