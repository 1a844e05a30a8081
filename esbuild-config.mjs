// How the extension host code and the CLI are bundled: what loads at start and what on first use
// (issue 23). esbuild.mjs runs these builds; tests build the same way to check what activation
// loads; eslint.config.mjs allows require() of exactly the modules listed here.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));

/**
 * Modules bundled into files of their own in dist/, so that a module is loaded when the first
 * code that needs it runs, and once: every import of one (static or `require`) becomes a require
 * of its file. Reached through `lazyModule(() => require('<module>'))` (src/core/lazy-module.ts)
 * a module loads on first use; imported statically, it loads with its importer.
 */
export const LAZY_MODULES = [
  // Everything behind the chat, the developer panel, the commands and the extension API.
  { file: 'lazy-runtime.js', module: './src/kit/runtime.ts' },
  { file: 'lazy-anthropic.js', module: '@anthropic-ai/sdk' },
  { file: 'lazy-openai.js', module: 'openai' },
  { file: 'lazy-mcp.js', module: './src/node/mcp/mcp-connections.ts' },
  { file: 'lazy-store.js', module: './src/store/sqljs-store.ts' },
  { file: 'lazy-team.js', module: './src/kit/team-plane-opener.ts' },
  { file: 'lazy-telemetry.js', module: './src/node/telemetry/genai-exporter.ts' },
  { file: 'lazy-yaml.js', module: 'yaml' },
  // web_fetch's HTML-to-Markdown (linkedom, Readability, turndown): loaded by the first fetch of a page.
  { file: 'lazy-web-markdown.js', module: './src/node/web/html-to-markdown.ts' },
  // Images (issue 36): probed and scaled only when one is attached or read.
  { file: 'lazy-jimp.js', module: 'jimp' },
  { file: 'lazy-image-size.js', module: 'image-size' },
  // WebP decoding (libwebp in WebAssembly; its ES-module glue made CommonJS here, webp_dec.wasm beside it).
  { file: 'lazy-webp.js', module: './src/node/images/webp-decode.ts' },
  // The policy file's schema: the runtime's, and the editor's diagnostics of agent.yaml.
  { file: 'lazy-policy.js', module: './src/core/policy/agent-policy.ts' },
  // Used by most of the above: one copy in the process.
  { file: 'lazy-zod.js', module: 'zod' },
];

const isPackage = (module) => !module.startsWith('.');
const baseName = (module) => path.basename(module, '.ts');
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** `require()` in the sources is allowed of these only (eslint's no-require-imports). */
export const LAZY_REQUIRE_PATTERNS = LAZY_MODULES.map(({ module }) =>
  isPackage(module) ? `^${escape(module)}$` : `^\\.\\.?/(?:.+/)?${escape(baseName(module))}$`,
);

/** Every import of a listed module becomes a require of its file, next to the bundle asking for it. */
export function lazyModulesPlugin() {
  const packages = new Map(
    LAZY_MODULES.filter(({ module }) => isPackage(module)).map((entry) => [entry.module, entry]),
  );
  const files = new Map(
    LAZY_MODULES.filter(({ module }) => !isPackage(module)).map((entry) => [path.join(root, entry.module), entry]),
  );
  const names = [...files.values()].map(({ module }) => escape(baseName(module)));
  const external = (entry) => ({ path: `./${entry.file}`, external: true });
  return {
    name: 'lazy-modules',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) =>
        args.kind !== 'entry-point' && packages.has(args.path) ? external(packages.get(args.path)) : undefined,
      );
      build.onResolve({ filter: new RegExp(`^\\.\\.?/(?:.*/)?(?:${names.join('|')})(?:\\.ts)?$`) }, async (args) => {
        if (args.kind === 'entry-point' || args.pluginData?.lazyModules) return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: { lazyModules: true },
        });
        const entry = files.get(resolved.path);
        return entry ? external(entry) : undefined;
      });
    },
  };
}

/**
 * zod's error messages in English only: its other 40-odd locales are a quarter of a megabyte
 * that nothing here selects (`z.locales.en` stays; English is zod's default).
 */
export function zodEnglishOnlyPlugin() {
  return {
    name: 'zod-english-only',
    setup(build) {
      build.onResolve({ filter: /^\.\.\/locales\/index\.c?js$/ }, (args) =>
        /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
          ? { path: path.join(args.resolveDir, '..', 'locales', 'index.js'), namespace: 'zod-english-only' }
          : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
        contents: 'export { default as en } from "./en.js";',
        resolveDir: path.dirname(args.path),
        loader: 'js',
      }));
    },
  };
}

/**
 * Every file of ours that imports `vscode` reaches it through one module. esbuild otherwise
 * copies the whole API object once per importing file (its ES-module wrapper for a CommonJS
 * require): some thirty copies, 7–11 ms at activation in the profile.
 */
export function oneVscodeModulePlugin() {
  return {
    name: 'one-vscode-module',
    setup(build) {
      build.onResolve({ filter: /^vscode$/ }, (args) =>
        args.namespace === 'vscode-api'
          ? { path: 'vscode', external: true }
          : { path: 'vscode', namespace: 'vscode-api' },
      );
      build.onLoad({ filter: /.*/, namespace: 'vscode-api' }, () => ({
        contents: 'export * from "vscode";',
        loader: 'js',
      }));
    },
  };
}

/** The entry points of the extension host's bundles: activation's, and each lazy or shared module's. */
export function extensionEntryPoints() {
  const entries = { extension: 'src/extension.ts' };
  for (const { file, module } of LAZY_MODULES) entries[file.replace(/\.js$/, '')] = module;
  return entries;
}

/** The esbuild options of the extension host's bundles (dist/extension.js and the lazy files). */
export function extensionBuild(common) {
  return {
    ...common,
    entryPoints: extensionEntryPoints(),
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    plugins: [lazyModulesPlugin(), zodEnglishOnlyPlugin(), oneVscodeModulePlugin()],
  };
}

/** The CLI: its own entry, the same lazy files beside it. */
export function cliBuild(common) {
  return {
    ...common,
    entryPoints: { cli: 'src/cli/main.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    plugins: [lazyModulesPlugin(), zodEnglishOnlyPlugin()],
  };
}
