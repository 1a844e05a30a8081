// Bundles the extension host code, the webview script, the CLI and the in-editor test suites.
// Usage: node esbuild.mjs [--production] [--watch] [--tests]
import * as esbuild from 'esbuild';
import { chmod, copyFile, mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';

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
};

/**
 * What keeps the webviews' scripts small and the composer first, checked on every build: no zod
 * (host messages are checked with the parsers generated from the protocol's schemas), and no
 * chunk the chat's first script has to fetch before it can paint.
 * @type {esbuild.Plugin}
 */
const webviewBudget = {
  name: 'webview-budget',
  setup(build) {
    build.onEnd((result) => {
      if (!result.metafile) return;
      for (const [file, output] of Object.entries(result.metafile.outputs)) {
        const zod = Object.keys(output.inputs).find((input) => input.includes('node_modules/zod/'));
        if (zod)
          throw new Error(`${file} bundles ${zod}: webviews check host messages with src/protocol/generated/, not zod`);
        const waitsFor = output.entryPoint ? output.imports.filter((item) => item.kind === 'import-statement') : [];
        if (waitsFor.length)
          throw new Error(`${file} imports ${waitsFor.map((item) => item.path).join(', ')} before it can paint`);
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
  {
    ...common,
    entryPoints: { extension: 'src/extension.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  },
  {
    ...common,
    entryPoints: { cli: 'src/cli/main.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
  // The webviews load as modules. The chat's first script builds and paints the composer; the
  // rest of the chat is one chunk it imports after that paint (chat-conversation.js). Each
  // webview is its own build, so neither waits for a chunk shared with the other.
  {
    ...webviewCommon,
    entryPoints: { chat: 'webview/chat/main.ts' },
    splitting: true,
    chunkNames: 'chat-[name]',
  },
  { ...webviewCommon, entryPoints: { panel: 'webview/panel/main.ts' } },
];

if (withTests) {
  // Each folder is one in-editor suite: its index.ts (the mocha runner) and its *.test.ts files.
  for (const dir of ['test/integration', 'test/integration-untrusted', 'test/integration-team']) {
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
