/**
 * The starting context: what the first request of a conversation carries before the user has
 * said much — the system prompt and the schema of every built-in tool. Built as the editor
 * builds it (the coding preset, the bundled skills' index, the workspace tools with code
 * navigation, background jobs, plan mode, tasks, think, compact, sub-agents) through a real
 * ConversationSession, and read off the wire at the fake model server: a tool added anywhere
 * in the composition is counted without this file knowing of it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildSystemPrompt } from '../../src/core/agent/system-prompt';
import { estimateInputTokens } from '../../src/core/agent/metered-llm';
import type { AgentEvent } from '../../src/core/events/events';
import { PresetLibrary } from '../../src/core/knowledge/presets';
import { ProjectKnowledge } from '../../src/core/knowledge/project-knowledge';
import type { LlmRequest } from '../../src/core/llm/llm-client';
import { estimateTokens } from '../../src/core/llm/token-estimate';
import type { CodeNavigation } from '../../src/core/ports';
import { ConversationSession } from '../../src/core/session/conversation-session';
import { createWorkspaceTools } from '../../src/core/tools/builtin/workspace-tools';
import { ChildProcessRunner } from '../../src/node/child-process-runner';
import { ChildProcessShell } from '../../src/node/child-process-shell';
import { FileTaskStorage } from '../../src/node/file-task-storage';
import { FileTeamStorage } from '../../src/node/file-team-storage';
import { NodeKnowledgeFiles } from '../../src/node/node-knowledge-files';
import { NodeWorkspace } from '../../src/node/node-workspace';
import { RipgrepSearch } from '../../src/node/ripgrep-search';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { loadScenario } from '../fixtures/fake-model-server/scenario';
import { LlamaServer } from '../fixtures/llama-server/llama-server';

const ROOT = path.resolve(__dirname, '..', '..');

/** What the product promises for the starting context, by its own estimate and by a real tokenizer. */
export const STARTING_CONTEXT_LIMIT = 4_000;

/** The first request on the wire (OpenAI Chat Completions format). */
export interface OpeningWire {
  messages: Array<{ role: string; content: string }>;
  tools: Array<{ type: 'function'; function: { name: string; description: string; parameters: unknown } }>;
}

export interface ContextPart {
  /** "system prompt" or a tool's name. */
  name: string;
  /** The product's estimate (characters ÷ 4) of its share. */
  tokens: number;
  characters: number;
}

export interface StartingContext {
  /** "the editor" or "the editor, team switch on". */
  setting: string;
  /** The product's estimate of system prompt + tools (no user message). */
  tokens: number;
  parts: ContextPart[];
  wire: OpeningWire;
}

/** An editor whose language servers know nothing yet: the navigation tools exist, their answers are empty. */
const languageFeaturesWithoutServers: CodeNavigation = {
  diagnostics: async () => [],
  findSymbols: async () => [],
  references: async () => [],
  definitions: async () => [],
};

/** The request as the core sees it again: system prompt and tool definitions, no messages. */
export function asStartingRequest(wire: OpeningWire): LlmRequest {
  return {
    model: 'default',
    system: wire.messages[0]?.role === 'system' ? wire.messages[0].content : '',
    messages: [],
    tools: wire.tools.map((tool) => ({
      name: tool.function.name,
      description: tool.function.description,
      inputSchema: tool.function.parameters as Record<string, unknown>,
    })),
    maxOutputTokens: 1,
  };
}

/** The product's estimate of the starting context, split into the system prompt and each tool. */
export function measureParts(wire: OpeningWire): { tokens: number; parts: ContextPart[] } {
  const request = asStartingRequest(wire);
  const parts: ContextPart[] = [
    { name: 'system prompt', tokens: estimateTokens(request.system), characters: request.system.length },
    ...request.tools.map((tool) => {
      const characters = JSON.stringify(tool).length;
      return { name: tool.name, tokens: estimateTokens(JSON.stringify(tool)), characters };
    }),
  ];
  return { tokens: estimateInputTokens(request), parts };
}

/** Runs one prompt through a ConversationSession composed as the editor composes it. */
export async function openingRequest(teamsOn: boolean): Promise<OpeningWire> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-starting-context-'));
  const workspaceRoot = path.join(scratch, 'workspace');
  fs.mkdirSync(workspaceRoot);
  fs.writeFileSync(path.join(workspaceRoot, 'README.md'), '# Sample\n');
  const fake = await FakeModelServer.start({ scenario: loadScenario('hello') });
  const files = new NodeKnowledgeFiles();
  const knowledge = new ProjectKnowledge({
    files,
    workspaceRoot: () => workspaceRoot,
    isTrusted: () => true,
    bundledSkills: path.join(ROOT, 'skills'),
    globalMemory: path.join(scratch, 'memory.md'),
  });
  const presets = new PresetLibrary(files, path.join(ROOT, 'prompts'), () => workspaceRoot);
  const workspace = new NodeWorkspace(workspaceRoot);
  const session = new ConversationSession({
    readSettings: () => ({ provider: 'openai-compatible', model: 'fake-model', baseUrl: fake.openAiBaseUrl }),
    secrets: { getApiKey: async () => undefined },
    clock: { now: () => Date.now() },
    newId: () => 'starting-context',
    workspace: () => workspace,
    workspaceRoot: () => workspaceRoot,
    isTrusted: () => true,
    processRunner: new ChildProcessRunner(),
    taskStorage: new FileTaskStorage(path.join(scratch, 'tasks')),
    teamStorage: new FileTeamStorage(path.join(scratch, 'teams')),
    tools: (tracked) =>
      createWorkspaceTools({
        files: tracked ?? workspace,
        search: new RipgrepSearch('rg'),
        shell: new ChildProcessShell(),
        cwd: () => workspaceRoot,
        navigation: languageFeaturesWithoutServers,
        knowledge: knowledge.tools(),
      }),
    systemPrompt: async () =>
      buildSystemPrompt(
        await presets.read('coding'),
        // Fixed facts: the measure must not move with the machine it runs on.
        { os: 'Linux 6.1.0', shell: '/bin/bash', workspaceRoot: '/home/user/project', date: new Date('2026-01-15') },
        (await knowledge.load()).sections,
      ),
  });
  session.switches.setTeams(teamsOn);
  const done = new Promise<void>((resolve) =>
    session.onEvent((event: AgentEvent) => {
      if (event.type === 'done' || event.type === 'error') resolve();
    }),
  );
  try {
    const problem = await session.submit('hello there');
    if (problem) throw new Error(problem.message);
    await done;
    const call = fake.modelCalls[0];
    if (!call) throw new Error('the session made no model call');
    return call.body as OpeningWire;
  } finally {
    await session.dispose();
    await fake.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The starting context as the editor sends it, with the team switch off (default) and on. */
export async function measureStartingContext(): Promise<StartingContext[]> {
  const results: StartingContext[] = [];
  for (const [setting, teamsOn] of [
    ['the editor (default)', false],
    ['the editor, team switch on', true],
  ] as const) {
    const wire = await openingRequest(teamsOn);
    results.push({ setting, ...measureParts(wire), wire });
  }
  return results;
}

/** llama-server's count of a request's prompt (its chat template applied), from the usage it reports. */
async function promptTokens(server: LlamaServer, body: Record<string, unknown>): Promise<number> {
  const response = await fetch(`${server.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, max_tokens: 1 }),
  });
  const answer = (await response.json()) as { usage?: { prompt_tokens: number } };
  if (!answer.usage) throw new Error(`llama-server did not count the request: ${JSON.stringify(answer).slice(0, 300)}`);
  return answer.usage.prompt_tokens;
}

/** The starting context by a real tokenizer: the whole, and the system prompt's share of it. */
export interface TokenizerCount {
  total: number;
  system: number;
}

/**
 * The starting context counted by a real tokenizer (Qwen2's, with the Qwen2.5 chat template, in
 * llama.cpp's server): the opening request less the same user message sent alone, so what is
 * left is the system prompt, the tool schemas and the template's words around them.
 */
export async function countWithTokenizer(wires: readonly OpeningWire[]): Promise<TokenizerCount[]> {
  const server = await LlamaServer.start({ contextSize: 32_768 });
  try {
    const counts: TokenizerCount[] = [];
    for (const wire of wires) {
      const user = wire.messages.filter((message) => message.role === 'user');
      const whole = await promptTokens(server, { messages: wire.messages, tools: wire.tools });
      const withoutTools = await promptTokens(server, { messages: wire.messages });
      const alone = await promptTokens(server, { messages: user });
      counts.push({ total: whole - alone, system: withoutTools - alone });
    }
    return counts;
  } finally {
    await server.stop();
  }
}
