/**
 * VS Code's mcp.json and the portable .mcp.json as users write them (JSONC), their variables,
 * names colliding across files, and the fingerprint the user's "Allow" is kept under.
 */
import assert from 'node:assert/strict';
import { fingerprintIdentity } from '../../../../src/core/workspace/allow-fingerprint';
import {
  combineDefinitions,
  definitionFingerprint,
  describeDefinition,
  inputIdsOf,
  MCP_SOURCE_ORDER,
  McpVariableError,
  parseEnvFile,
  resolveDefinition,
  type McpVariableContext,
} from '../../../../src/core/mcp/mcp-definitions';
import { parseMcpServers } from '../../../../src/core/mcp/mcp-config';
import {
  definitionsOf,
  parseClaudeMcpJson,
  parseVscodeMcpJson,
  toolSafeName,
} from '../../../../src/core/mcp/vscode-mcp-json';

const VSCODE_FILE = `{
  // As VS Code writes it: comments, trailing commas, inputs.
  "inputs": [
    { "type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key", "password": true },
  ],
  "servers": {
    "Perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-perplexity-ask", "--root", "\${workspaceFolder}"],
      "env": { "PERPLEXITY_API_KEY": "\${input:perplexity-key}", "PORT": 8080 },
      "envFile": "\${workspaceFolder}/.env",
    },
    "fetch": { "type": "http", "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer \${input:perplexity-key}" } },
    "legacy": { "type": "sse", "url": "http://localhost:3001/sse" },
    "io.github.github/github-mcp-server": { "command": "github-mcp", "args": ["stdio"] },
    "off": { "command": "x", "disabled": true },
  },
}`;

function context(values: Record<string, string> = {}, env: Record<string, string> = {}): McpVariableContext {
  return {
    workspaceFolder: '/work/project',
    userHome: '/home/user',
    env,
    pathSeparator: '/',
    input: (id) => values[id],
  };
}

describe("VS Code's mcp.json and .mcp.json", () => {
  it('reads servers and inputs from JSONC, inferring the transport, naming servers so tools can carry them', () => {
    const file = parseVscodeMcpJson(VSCODE_FILE, '.vscode/mcp.json', 'workspace');
    assert.deepEqual(file.problems, []);
    assert.deepEqual(
      file.definitions.map((definition) => [definition.name, definition.transport]),
      [
        ['Perplexity', 'stdio'],
        ['fetch', 'http'],
        ['legacy', 'sse'],
        ['github-mcp-server', 'stdio'],
      ],
    );
    assert.deepEqual(file.inputs, [
      { id: 'perplexity-key', description: 'Perplexity API Key', password: true, source: '.vscode/mcp.json' },
    ]);
    const perplexity = file.definitions[0]!;
    assert.equal(perplexity.env.PORT, '8080', 'numbers become strings');
    assert.equal(perplexity.envFile, '${workspaceFolder}/.env');
    assert.deepEqual(inputIdsOf(perplexity), ['perplexity-key']);
  });

  it('reports what it cannot use, naming the server, and keeps the rest', () => {
    const file = parseVscodeMcpJson(
      `{"inputs": [{"type": "pickString", "id": "choice", "options": ["a"]}, {"type": "promptString", "id": "ok"}],
        "servers": {"no-command": {"type": "stdio"}, "no-url": {"type": "http"}, "bad-args": {"command": "x", "args": "nope"}, "good": {"command": "x"}}}`,
      '.vscode/mcp.json',
      'workspace',
    );
    assert.deepEqual(
      file.definitions.map((definition) => definition.name),
      ['good'],
    );
    assert.deepEqual(
      file.inputs.map((input) => input.id),
      ['ok'],
    );
    const messages = file.problems.map((problem) => `${problem.server ?? '-'}: ${problem.message}`);
    assert.ok(
      messages.some((message) => /only promptString/.test(message)),
      messages.join('\n'),
    );
    assert.ok(messages.includes('no-command: a stdio server needs "command"'), messages.join('\n'));
    assert.ok(messages.includes('no-url: an http server needs "url"'), messages.join('\n'));
    assert.ok(
      messages.some((message) => message.startsWith('bad-args: args')),
      messages.join('\n'),
    );
  });

  it('says where JSON is broken, by line', () => {
    const file = parseVscodeMcpJson(
      '{\n  "servers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}',
      'user mcp.json',
      'user',
    );
    assert.match(file.problems[0]!.message, /^not valid JSON: CommaExpected at line 4$/);
    assert.deepEqual(file.definitions, []);
  });

  it('reads .mcp.json (mcpServers, optional type) with ${VAR} and ${VAR:-default} from the environment', () => {
    const file = parseClaudeMcpJson(
      `{"mcpServers": {
        "db": {"command": "\${HOME_BIN:-/usr/local/bin}/db-mcp", "args": ["--token", "\${DB_TOKEN}"]},
        "api": {"type": "http", "url": "\${API_BASE:-https://api.example.com}/mcp", "headers": {"X-Key": "\${API_KEY}"}}
      }}`,
      '.mcp.json',
      'workspace',
    );
    assert.deepEqual(file.problems, []);
    const [db, api] = file.definitions;
    assert.deepEqual(inputIdsOf(db!), [], 'no inputs in this format');
    assert.deepEqual(resolveDefinition(db!, context({}, { DB_TOKEN: 'token-1' })), {
      command: '/usr/local/bin/db-mcp',
      args: ['--token', 'token-1'],
      env: {},
    });
    assert.deepEqual(resolveDefinition(api!, context({}, { API_KEY: 'k' })), {
      url: 'https://api.example.com/mcp',
      headers: { 'X-Key': 'k' },
    });
    assert.throws(() => resolveDefinition(db!, context()), /\$\{DB_TOKEN\} is not set and has no default/);
  });

  it('resolves VS Code variables when the server starts, the env file under the definition own env', () => {
    const [perplexity, fetch] = parseVscodeMcpJson(VSCODE_FILE, '.vscode/mcp.json', 'workspace').definitions;
    const resolved = resolveDefinition(perplexity!, context({ 'perplexity-key': 'pplx-secret' }), {
      PERPLEXITY_API_KEY: 'from-env-file',
      EXTRA: 'from-env-file',
    });
    assert.deepEqual(resolved, {
      command: 'npx',
      args: ['-y', 'server-perplexity-ask', '--root', '/work/project'],
      env: { PERPLEXITY_API_KEY: 'pplx-secret', PORT: '8080', EXTRA: 'from-env-file' },
    });
    assert.deepEqual(resolveDefinition(fetch!, context({ 'perplexity-key': 'k' })), {
      url: 'https://example.com/mcp',
      headers: { Authorization: 'Bearer k' },
    });
    assert.throws(
      () => resolveDefinition(perplexity!, context()),
      (error: Error) => {
        assert.ok(error instanceof McpVariableError);
        assert.equal(error.message, 'the input "perplexity-key" was not given');
        return true;
      },
    );
    const home = parseVscodeMcpJson(
      '{"servers": {"h": {"command": "${userHome}${/}bin${pathSeparator}tool", "args": ["${env:LANG}", "${workspaceFolderBasename}", "${env:UNSET}"]}}}',
      'user mcp.json',
      'user',
    ).definitions[0]!;
    assert.deepEqual(resolveDefinition(home, context({}, { LANG: 'C' })), {
      command: '/home/user/bin/tool',
      args: ['C', 'project', ''],
      env: {},
    });
    const unknown = parseVscodeMcpJson('{"servers": {"u": {"command": "${command:pick}"}}}', 'f', 'user')
      .definitions[0]!;
    assert.throws(() => resolveDefinition(unknown, context()), /\$\{command:pick\} is not a variable OpenAgent knows/);
    const noFolder = { ...context(), workspaceFolder: undefined };
    const folderBound = parseVscodeMcpJson('{"servers": {"f": {"command": "${workspaceFolder}/x"}}}', 'f', 'user')
      .definitions[0]!;
    assert.throws(() => resolveDefinition(folderBound, noFolder), /needs an open folder/);
  });

  it('refuses a URL that is not http(s) once resolved', () => {
    const definition = parseVscodeMcpJson('{"servers": {"f": {"type": "http", "url": "${env:URL}"}}}', 'f', 'user')
      .definitions[0]!;
    assert.throws(
      () => resolveDefinition(definition, context({}, { URL: 'file:///etc/passwd' })),
      /http:\/\/ or https:\/\//,
    );
  });

  it('parses env files: export, comments, quotes', () => {
    assert.deepEqual(
      parseEnvFile(
        '# comment\nexport A=1\nB = "two words"\nC=\'$raw\'\nD=value # trailing\nnot a line\nE="line\\nbreak"\r\n',
      ),
      { A: '1', B: 'two words', C: '$raw', D: 'value', E: 'line\nbreak' },
    );
  });

  it('one server per name: the first source in the stated order wins, the other is reported naming both files', () => {
    const settings = definitionsOf(
      parseMcpServers({ github: { command: 'user-github' } }, MCP_SOURCE_ORDER[0]).servers,
      MCP_SOURCE_ORDER[0],
      'user',
    );
    const vscodeFile = parseVscodeMcpJson(
      '{"servers": {"github": {"command": "repo-github"}, "docs": {"command": "docs"}}}',
      '.vscode/mcp.json',
      'workspace',
    ).definitions;
    const portable = parseClaudeMcpJson(
      '{"mcpServers": {"docs": {"command": "other-docs"}}}',
      '.mcp.json',
      'workspace',
    ).definitions;
    const { definitions, problems } = combineDefinitions([settings, vscodeFile, portable]);
    assert.deepEqual(
      definitions.map((definition) => [definition.name, definition.command, definition.source]),
      [
        ['github', 'user-github', 'settings (openagent.mcpServers)'],
        ['docs', 'docs', '.vscode/mcp.json'],
      ],
    );
    assert.equal(problems.length, 2);
    assert.equal(problems[0]!.source, '.vscode/mcp.json');
    assert.match(problems[0]!.message, /^also defined in settings \(openagent.mcpServers\), which wins/);
    assert.match(
      problems[1]!.message,
      /also defined in \.vscode\/mcp\.json, which wins \(order: settings .* > \.mcp\.json\)/,
    );
  });

  it('fingerprints what runs: env and header names and values as written, the env file by its values', () => {
    const parse = (server: object) =>
      parseVscodeMcpJson(JSON.stringify({ servers: { s: server } }), '.vscode/mcp.json', 'workspace').definitions[0]!;
    const base = definitionFingerprint(parse({ command: 'node', args: ['a.js'], env: { KEY: 'one' } }));
    assert.match(base, /^2(:[0-9a-f]{64}){6}$/);
    assert.notEqual(definitionFingerprint(parse({ command: 'node', args: ['a.js'], env: { KEY: 'two' } })), base);
    assert.notEqual(definitionFingerprint(parse({ command: 'node', args: ['b.js'], env: { KEY: 'one' } })), base);
    assert.notEqual(definitionFingerprint(parse({ command: 'nodejs', args: ['a.js'], env: { KEY: 'one' } })), base);
    assert.notEqual(definitionFingerprint(parse({ command: 'node', args: ['a.js'], env: { KEY2: 'one' } })), base);
    assert.notEqual(
      definitionFingerprint(parse({ command: 'node', args: ['a.js'], env: { KEY: 'one' }, cwd: '/tmp' })),
      base,
    );
    const withFile = (envFromFile: Record<string, string>) =>
      definitionFingerprint(parse({ command: 'node', args: ['a.js'], env: { KEY: 'one' } }), { envFromFile });
    assert.notEqual(withFile({ NODE_OPTIONS: '' }), base, 'a new variable in the env file asks again');
    assert.notEqual(
      withFile({ NODE_OPTIONS: '--require ./x.js' }),
      withFile({ NODE_OPTIONS: '--max-old-space-size=4096' }),
      'a changed value in the env file asks again',
    );
    assert.ok(!withFile({ NODE_OPTIONS: 'secret-value' }).includes('secret-value'));
    assert.equal(
      fingerprintIdentity(withFile({ A: '1' })),
      fingerprintIdentity(base),
      'the same file and name: the question can say what changed',
    );
    const other = parseVscodeMcpJson(
      JSON.stringify({ servers: { s: { command: 'node', args: ['a.js'], env: { KEY: 'one' } } } }),
      '.mcp.json',
      'workspace',
    );
    assert.notEqual(
      definitionFingerprint(other.definitions[0]!),
      base,
      'the same definition in another file is another decision',
    );
    const http = (server: object) => definitionFingerprint(parse({ type: 'http', ...server }));
    assert.equal(
      http({ url: 'https://a.example/mcp', headers: { Authorization: 'x' } }),
      http({ url: 'https://a.example/mcp', headers: { authorization: 'x' } }),
    );
    assert.notEqual(
      http({ url: 'https://a.example/mcp', headers: { 'X-Forward-To': 'https://a.example' } }),
      http({ url: 'https://a.example/mcp', headers: { 'X-Forward-To': 'https://evil.example' } }),
    );
    assert.notEqual(http({ url: 'https://a.example/mcp' }), http({ url: 'https://b.example/mcp' }));
  });

  it('describes what will run, with input placeholders and never a value', () => {
    const [perplexity, fetch] = parseVscodeMcpJson(VSCODE_FILE, '.vscode/mcp.json', 'workspace').definitions;
    assert.equal(
      describeDefinition(perplexity!, ['FROM_FILE']),
      'npx -y server-perplexity-ask --root ${workspaceFolder} · env: PERPLEXITY_API_KEY, PORT, FROM_FILE · env file: ${workspaceFolder}/.env · values from variables: PERPLEXITY_API_KEY: ${input:perplexity-key}',
    );
    assert.equal(
      describeDefinition(fetch!),
      'HTTP https://example.com/mcp · headers: Authorization · values from variables: header Authorization: ${input:perplexity-key}',
    );
    const spaced = parseVscodeMcpJson('{"servers": {"s": {"command": "my tool", "args": ["it\'s"]}}}', 'f', 'user')
      .definitions[0]!;
    assert.equal(describeDefinition(spaced), "'my tool' 'it'\\''s'");
  });

  it('makes names tools can carry', () => {
    assert.equal(toolSafeName('my server.v2'), 'my_server_v2');
    assert.equal(toolSafeName('a'.repeat(40)), 'a'.repeat(32));
    assert.equal(toolSafeName('ü'), '_');
    assert.equal(toolSafeName('io.github.github/github-mcp-server'), 'github-mcp-server');
    assert.equal(toolSafeName(''), 'server');
  });
});
