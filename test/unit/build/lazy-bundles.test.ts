/**
 * What activation loads (issue 23), checked on the bundles esbuild-config.mjs makes: the built
 * dist/extension.js is loaded and activated in plain Node with a stand-in for the `vscode`
 * module, and every file it requires is recorded. Also: zod ships in English only, with the
 * messages users read unchanged.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { z as unbundledZod } from 'zod';

const projectRoot = path.resolve(__dirname, '..', '..', '..');
/** Loads a built bundle by its path, as the extension host loads an extension's main file. */
const loadBundle = Module.createRequire(__filename);

interface BuildConfig {
  extensionBuild(common: esbuild.BuildOptions): esbuild.BuildOptions;
  LAZY_MODULES: Array<{ file: string; module: string }>;
}

/** The issue's ceiling for the code loaded at activation. */
const ACTIVATION_BUDGET_BYTES = 400 * 1024;

/**
 * A `vscode` that answers everything: every property is a function returning another such
 * object, so activation can register and subscribe as it does in the editor. Promises it gets
 * never settle (nothing here answers a secret or a file search); read as a value it is an empty
 * string (a setting). Its top level lists the names
 * @types/vscode declares, as the real module has them.
 */
function standInVscode(): unknown {
  const make = (): unknown =>
    new Proxy(function () {}, {
      get: (_target, property) => (property === Symbol.toPrimitive ? () => '' : make()),
      set: () => true,
      apply: () => make(),
      construct: () => make() as object,
    });
  const declarations = fs.readFileSync(
    path.join(projectRoot, 'node_modules', '@types', 'vscode', 'index.d.ts'),
    'utf8',
  );
  const names = [
    ...new Set(
      [...declarations.matchAll(/^\s*export (?:namespace|class|enum|const|function|let) (\w+)/gm)].map(
        (match) => match[1]!,
      ),
    ),
  ];
  return new Proxy(
    {},
    {
      get: (_target, property) => (property === 'then' ? undefined : make()),
      ownKeys: () => names,
      getOwnPropertyDescriptor: (_target, property) =>
        names.includes(String(property)) ? { configurable: true, enumerable: true, value: make() } : undefined,
    },
  );
}

describe('the bundles (esbuild-config.mjs)', function () {
  this.timeout(180_000);
  let outdir: string;
  let config: BuildConfig;
  let metafile: esbuild.Metafile;

  before(async () => {
    config = (await import(path.join(projectRoot, 'esbuild-config.mjs'))) as BuildConfig;
    outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-bundles-'));
    const options = config.extensionBuild({ bundle: true, minify: true, legalComments: 'none', logLevel: 'error' });
    const result = await esbuild.build({ ...options, absWorkingDir: projectRoot, outdir, metafile: true });
    metafile = result.metafile;
  });

  after(() => fs.rmSync(outdir, { recursive: true, force: true }));

  it('loads only dist/extension.js to activate, and it is within the budget', () => {
    const loaded: string[] = [];
    const load = (Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown })._load;
    const vscode = standInVscode();
    (Module as unknown as { _load: unknown })._load = function (request: string, ...rest: unknown[]) {
      if (request === 'vscode') return vscode;
      if (request.startsWith('.') || path.isAbsolute(request)) loaded.push(path.basename(request));
      return load.call(this, request, ...rest);
    };
    try {
      const extension = loadBundle(path.join(outdir, 'extension.js')) as { activate(context: unknown): unknown };
      const api = extension.activate(standInVscode()) as Record<string, unknown>;
      assert.equal(typeof api.startConversation, 'function');
      assert.equal(api.isRunning, false);
    } finally {
      (Module as unknown as { _load: unknown })._load = load;
    }
    assert.deepEqual(loaded, ['extension.js']);
    const size = fs.statSync(path.join(outdir, 'extension.js')).size;
    assert.ok(size <= ACTIVATION_BUDGET_BYTES, `dist/extension.js is ${size} bytes`);
  });

  it('keeps third-party code out of the activation bundle', () => {
    const [, output] = Object.entries(metafile.outputs).find(([file]) => file.endsWith('/extension.js'))!;
    const packages = Object.keys(output.inputs).filter((input) => input.includes('node_modules/'));
    assert.deepEqual(packages, []);
  });

  it('gives each lazy module one file, and no module a second copy of zod', () => {
    for (const { file } of config.LAZY_MODULES) assert.ok(fs.existsSync(path.join(outdir, file)), `${file} is missing`);
    const withZod = Object.entries(metafile.outputs)
      .filter(([, output]) => Object.keys(output.inputs).some((input) => input.includes('node_modules/zod/v4/classic')))
      .map(([file]) => path.basename(file))
      // The MCP SDK brings its own zod build (zod/v4 subpaths), loaded only with MCP servers.
      .filter((file) => file !== 'lazy-mcp.js');
    assert.deepEqual(withZod, ['lazy-zod.js']);
  });

  it('ships zod with English messages only, word for word as zod writes them', () => {
    const { z } = loadBundle(path.join(outdir, 'lazy-zod.js')) as { z: typeof unbundledZod };
    assert.deepEqual(Object.keys(z.locales), ['en']);
    const schema = (zod: typeof unbundledZod) =>
      zod.object({ path: zod.string().min(1), limit: zod.number().int().positive().optional() }).strict();
    const input = { path: '', limit: -2.5, extra: true };
    const messages = (zod: typeof unbundledZod) =>
      schema(zod)
        .safeParse(input)
        .error!.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    assert.deepEqual(messages(z), messages(unbundledZod));
    assert.ok(messages(z).length >= 3);
  });
});
