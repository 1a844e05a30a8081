/**
 * `npm start`: builds and packages OpenAgent, then opens VS Code with it installed on the demo
 * shop (a tiny project with a failing test). With a desktop `code` on PATH it uses that;
 * otherwise it serves code-server 4.100.3 (installed once into .vscode-test/) and prints the
 * address to open in a browser. What the machine lacks for that is said first, in one line.
 *
 *   npm start                   your own provider settings and keys
 *   npm start -- --fake-model   an offline demo model answers (no key needed): see the demo
 *                               script in test/fixtures/demo/
 *   npm start -- --port 8080    choose code-server's port
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  checkCodeServerSystem,
  ensureCodeServer,
  freePort,
  installVsix,
  startCodeServer,
} from '../test/harness/code-server';
import { FakeModelServer } from '../test/fixtures/fake-model-server/server';
import { demoModel } from '../test/fixtures/demo/demo-model';

const projectRoot = path.resolve(__dirname, '..');
const vsix = path.join(projectRoot, 'openagent.vsix');
const stateDir = path.join(projectRoot, '.vscode-test', 'start');
const workspace = path.join(stateDir, 'demo-shop');

function hasDesktopCode(): boolean {
  return (
    spawnSync('sh', ['-c', 'command -v code'], { stdio: 'ignore' }).status === 0 &&
    !process.env.OPENAGENT_USE_CODE_SERVER
  );
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const fakeModel = argv.includes('--fake-model');
  const portFlag = argv.indexOf('--port');
  const port = portFlag >= 0 ? Number(argv[portFlag + 1]) : undefined;
  const desktop = hasDesktopCode() && !fakeModel;

  // Before the build: what the machine lacks for code-server, in one line.
  if (!desktop) {
    const system = checkCodeServerSystem();
    if (system.line) console.log(system.line);
    if (system.fatal) process.exit(1);
  }

  console.log('Building and packaging OpenAgent…');
  execFileSync('npm', ['run', '--silent', 'package'], { cwd: projectRoot, stdio: 'inherit' });
  // The demo shop is copied once, so what you change in it survives restarts.
  if (!fs.existsSync(workspace))
    fs.cpSync(path.join(projectRoot, 'test', 'fixtures', 'workspaces', 'demo'), workspace, { recursive: true });

  const settings: Record<string, unknown> = {};
  const env: NodeJS.ProcessEnv = {};
  if (fakeModel) {
    const fake = await FakeModelServer.start({ respond: demoModel() });
    Object.assign(settings, {
      'openagent.provider': 'openai-compatible',
      'openagent.baseUrl': fake.openAiBaseUrl,
      'openagent.model': 'fake-model',
    });
    console.log(`Offline demo model: ${fake.openAiBaseUrl}`);
  }

  if (desktop) {
    execFileSync('code', ['--install-extension', vsix, '--force'], { stdio: 'inherit' });
    execFileSync('code', [workspace], { stdio: 'inherit' });
    console.log(`Opened ${workspace} in VS Code with OpenAgent installed.`);
    return;
  }

  ensureCodeServer();
  const userDataDir = path.join(stateDir, 'user-data');
  const extensionsDir = path.join(stateDir, 'extensions');
  installVsix(vsix, extensionsDir, userDataDir);
  const server = await startCodeServer({
    folder: workspace,
    userDataDir,
    extensionsDir,
    settings,
    env,
    logFile: path.join(stateDir, 'code-server.log'),
    port: port ?? (await freePort()),
    keepSettings: true,
  });
  console.log(
    `\nOpenAgent is running in VS Code (code-server) at:\n\n    ${server.url}/?folder=${encodeURIComponent(workspace)}\n`,
  );
  console.log(
    fakeModel
      ? 'Open it in a browser, click the OpenAgent icon in the activity bar and type "fix the failing test" or "plan a feature": the offline demo model answers. Ctrl+C stops it.'
      : 'Open it in a browser, click the OpenAgent icon in the activity bar, and chat. Ctrl+C stops it.',
  );
  const stop = () => {
    void server.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
