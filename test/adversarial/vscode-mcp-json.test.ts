/**
 * Hostile MCP configuration from a repository: variables that try to expand into each other,
 * more inputs than anyone writes, ids with control characters, files too big or too deep, env
 * files that lead out of the workspace or would hang or never end, definitions that change only
 * where the user was not asked, and commands that look like others.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  definitionFingerprint,
  describeDefinition,
  inputIdsOf,
  McpVariableError,
  resolveDefinition,
  resolveVariables,
} from '../../src/core/mcp/mcp-definitions';
import { MAX_MCP_FILE_BYTES, MAX_MCP_INPUTS, parseVscodeMcpJson } from '../../src/core/mcp/vscode-mcp-json';
import { McpFileError, readEnvFileText, readWorkspaceText } from '../../src/node/mcp/mcp-files';

const context = (values: Record<string, string>) => ({
  workspaceFolder: '/w',
  userHome: '/h',
  env: { HOME: '/h' },
  pathSeparator: '/',
  input: (id: string) => values[id],
});

function server(definition: object, inputs: object[] = []) {
  const file = parseVscodeMcpJson(
    JSON.stringify({ inputs, servers: { s: definition } }),
    '.vscode/mcp.json',
    'workspace',
  );
  assert.deepEqual(file.problems, []);
  return file.definitions[0]!;
}

describe('hostile .vscode/mcp.json', () => {
  it('an input value is never expanded again: no recursion, no reaching another input or the environment', () => {
    const definition = server({ command: 'x', args: ['${input:a}'] }, [{ type: 'promptString', id: 'a' }]);
    const resolved = resolveDefinition(definition, context({ a: '${input:a}${input:b}${env:HOME}', b: 'SECRET-B' }));
    assert.deepEqual('command' in resolved && resolved.args, ['${input:a}${input:b}${env:HOME}']);
  });

  it('${input:${input:y}} is one invalid variable: y is not asked, the error names no value', () => {
    const definition = server({ command: 'x', args: ['${input:${input:y}}'] }, [{ type: 'promptString', id: 'y' }]);
    assert.deepEqual(inputIdsOf(definition), []);
    assert.throws(
      () => resolveDefinition(definition, context({ y: 'SECRET-Y' })),
      (error: Error) =>
        error instanceof McpVariableError &&
        !error.message.includes('SECRET') &&
        /not a valid input id/.test(error.message),
    );
    assert.equal(resolveVariables('${input:y}}', 'vscode', context({ y: 'v' })), 'v}');
  });

  it(`10,000 inputs: the first ${MAX_MCP_INPUTS} are read, quickly, and the rest reported`, () => {
    const inputs = Array.from({ length: 10_000 }, (_, index) => ({ type: 'promptString', id: `i${index}` }));
    const file = parseVscodeMcpJson(JSON.stringify({ inputs, servers: {} }), '.vscode/mcp.json', 'workspace');
    assert.equal(file.inputs.length, MAX_MCP_INPUTS);
    assert.deepEqual(
      file.problems.map((problem) => problem.message),
      [`10000 inputs: only the first ${MAX_MCP_INPUTS} are read`],
    );
  });

  it('an input id with control characters is refused, shown escaped', () => {
    const file = parseVscodeMcpJson(
      JSON.stringify({
        inputs: [{ type: 'promptString', id: 'key\u001b[2J\u0000\u202e' }],
        servers: { s: { command: 'x', args: ['${input:key\u001b[2J}'] } },
      }),
      '.vscode/mcp.json',
      'workspace',
    );
    assert.deepEqual(file.inputs, []);
    assert.equal(
      file.problems[0]!.message,
      'input id "key\\u{1b}[2J\\u{0}\\u{202e}": letters, digits, _ . and -, at most 64',
    );
    const shown = file.problems.map((problem) => problem.message).join('\n');
    assert.ok(![...shown].some((character) => character < ' ' || character === '\u202e'), shown);
    assert.deepEqual(inputIdsOf(file.definitions[0]!), []);
    assert.throws(
      () => resolveDefinition(file.definitions[0]!, context({})),
      (error: Error) => error instanceof McpVariableError && !error.message.includes('\u001b'),
    );
  });

  it('a file over the cap is refused unparsed; JSON nested 100,000 deep is refused without overflowing', () => {
    const huge = `{"servers": {}, "pad": "${'x'.repeat(MAX_MCP_FILE_BYTES)}"}`;
    assert.match(parseVscodeMcpJson(huge, 'f', 'workspace').problems[0]!.message, /over 1024 KiB/);
    const deep = `{"servers": {"s": ${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    assert.match(parseVscodeMcpJson(deep, 'f', 'workspace').problems[0]!.message, /nests deeper than 32 levels/);
    // Brackets inside strings and comments are not nesting.
    const quoted = `{"servers": {"s": {"command": "${'['.repeat(1000)}"}}} // ${'{'.repeat(1000)}`;
    assert.deepEqual(parseVscodeMcpJson(quoted, 'f', 'workspace').problems, []);
  });

  it("an env value as written counts (NODE_OPTIONS), an input's value never enters the fingerprint", () => {
    const inputs = [{ type: 'promptString', id: 'k' }];
    const first = server({ command: 'node', args: ['s.js'], env: { TOKEN: '${input:k}' } }, inputs);
    const pasted = server({ command: 'node', args: ['s.js'], env: { TOKEN: 'pasted-literal' } }, inputs);
    const renamed = server(
      { command: 'node', args: ['s.js'], env: { TOKEN: '${input:k}', NODE_OPTIONS: '--require x' } },
      inputs,
    );
    const options = (value: string) =>
      server({ command: 'node', args: ['s.js'], env: { TOKEN: '${input:k}', NODE_OPTIONS: value } }, inputs);
    assert.notEqual(definitionFingerprint(pasted), definitionFingerprint(first), 'a template replaced by a value');
    assert.notEqual(definitionFingerprint(renamed), definitionFingerprint(first));
    assert.notEqual(
      definitionFingerprint(options('--max-old-space-size=4096')),
      definitionFingerprint(options('--require ./x.js')),
    );
  });

  it('a command with look-alike letters, a right-to-left override or a newline is shown escaped', () => {
    const cyrillic = server({ command: 'n\u043ede', args: ['safe.js\u202e\u0073\u006a.live', 'a\nrm -rf ~'] });
    const shown = describeDefinition(cyrillic);
    assert.equal(shown, "n\\u{43e}de safe.js\\u{202e}sj.live 'a\\u{a}rm -rf ~'");
    assert.notEqual(
      definitionFingerprint(cyrillic),
      definitionFingerprint(server({ command: 'node', args: cyrillic.args })),
    );
    const long = describeDefinition(server({ command: 'x', args: Array.from({ length: 500 }, () => 'argument') }));
    assert.ok(long.length <= 701, `${long.length}`);
  });
});

describe('hostile env files', () => {
  let root: string;
  let outside: string;
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-mcp-ws-')));
    outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-mcp-out-')));
    fs.writeFileSync(path.join(outside, 'secrets.env'), 'STOLEN=1\n');
    fs.writeFileSync(path.join(root, '.env'), 'INSIDE=1\n');
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  const refused = async (file: string, pattern: RegExp) => {
    await assert.rejects(readEnvFileText(file, { workspaceRoot: root }), (error: Error) => {
      assert.ok(error instanceof McpFileError, String(error));
      assert.match(error.message, pattern);
      return true;
    });
  };

  it('reads the workspace own env file, also through a link that stays inside', async () => {
    assert.equal(await readEnvFileText('.env', { workspaceRoot: root }), 'INSIDE=1\n');
    fs.symlinkSync(path.join(root, '.env'), path.join(root, 'linked.env'));
    assert.equal(await readEnvFileText(path.join(root, 'linked.env'), { workspaceRoot: root }), 'INSIDE=1\n');
  });

  it('refuses a path outside, a link leading out, a FIFO (without hanging), /dev/zero and a huge file', async () => {
    await refused('../' + path.basename(outside) + '/secrets.env', /outside the workspace/);
    await refused(path.join(outside, 'secrets.env'), /outside the workspace/);
    await refused('/dev/zero', /outside the workspace/);
    fs.symlinkSync(path.join(outside, 'secrets.env'), path.join(root, 'out.env'));
    await refused('out.env', /^out\.env: .* is outside the workspace/);
    fs.symlinkSync(outside, path.join(root, 'out-folder'));
    await refused('out-folder/secrets.env', /^out-folder\/secrets\.env: .* is outside the workspace/);
    fs.symlinkSync('/dev/zero', path.join(root, 'zero.env'));
    await refused('zero.env', /^zero\.env is not a regular file/);
    execFileSync('mkfifo', [path.join(root, 'pipe.env')]);
    await refused('pipe.env', /not a regular file/);
    fs.writeFileSync(path.join(root, 'big.env'), Buffer.alloc(300 * 1024, 'A'));
    await refused('big.env', /over 256 KiB/);
    await refused('missing.env', /does not exist/);
  });

  it('a workspace mcp.json that is a link out of the workspace is not read', async () => {
    fs.mkdirSync(path.join(root, '.vscode'));
    fs.writeFileSync(path.join(outside, 'mcp.json'), '{"servers": {}}');
    fs.symlinkSync(path.join(outside, 'mcp.json'), path.join(root, '.vscode', 'mcp.json'));
    await assert.rejects(
      readWorkspaceText(root, path.join(root, '.vscode', 'mcp.json'), MAX_MCP_FILE_BYTES),
      McpFileError,
    );
  });
});
