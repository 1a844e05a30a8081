/**
 * Memory (SPEC 2.9): markdown notes the agent keeps between conversations, one file per scope —
 * the workspace's `.openagent/memory.md` (the default; it can be committed and shared) and a
 * global one for the user. Both are loaded into the system prompt of each new conversation;
 * `memory_read` and `memory_append` let the agent look and add.
 */
import { z } from 'zod';
import type { KnowledgeFiles } from '../ports';
import { defineTool, type AnyTool } from '../tools/tool';

export type MemoryScope = 'workspace' | 'global';

/** Where each scope's file is; a scope without a file (no folder open) is not available. */
export type MemoryLocations = Partial<Record<MemoryScope, string>>;

/** Each scope's memory is cut beyond this in the system prompt (memory_read shows it all). */
export const MEMORY_PROMPT_CHARS = 16_000;
/** One note appended at a time stays short; memory is for facts, not documents. */
export const MAX_NOTE_CHARS = 4_000;

const SCOPE_TITLES: Record<MemoryScope, string> = {
  workspace: 'Workspace memory (.openagent/memory.md)',
  global: 'Global memory (yours, in every workspace)',
};

export class Memory {
  constructor(
    private readonly files: KnowledgeFiles,
    private readonly locations: () => MemoryLocations,
  ) {}

  /** The file of a scope, for "Open Memory"; undefined when the scope is not available. */
  location(scope: MemoryScope): string | undefined {
    return this.locations()[scope];
  }

  async read(scope: MemoryScope): Promise<string> {
    const file = this.location(scope);
    return file ? ((await this.files.read(file)) ?? '') : '';
  }

  /** Adds a note as a list item, on a line of its own. */
  async append(scope: MemoryScope, note: string): Promise<void> {
    const file = this.location(scope);
    if (!file)
      throw new Error(
        `There is no ${scope} memory here: ${scope === 'workspace' ? 'no folder is open' : 'it is not set up'}.`,
      );
    const current = (await this.files.read(file)) ?? '';
    const lead = current === '' ? '# Memory\n\n' : current.endsWith('\n') ? '' : '\n';
    const item = note
      .trim()
      .split('\n')
      .map((line, index) => (index === 0 ? `- ${line}` : `  ${line}`))
      .join('\n');
    await this.files.append(file, `${lead}${item}\n`);
  }

  /** The "# Memory" section of the system prompt; empty when there is nothing remembered. */
  async promptSection(): Promise<string> {
    const parts: string[] = [];
    for (const scope of ['workspace', 'global'] as const) {
      // A memory that cannot be read (a pipe or a huge file in its place) is left out and said
      // so: every conversation must still start.
      const text = await this.read(scope).then(
        (read) => read.trim(),
        (error: unknown) => `[Not read: ${error instanceof Error ? error.message : String(error)}]`,
      );
      if (!text) continue;
      const cut = text.length > MEMORY_PROMPT_CHARS;
      parts.push(
        `## ${SCOPE_TITLES[scope]}\n${cut ? text.slice(0, MEMORY_PROMPT_CHARS) : text}` +
          (cut ? `\n[… cut at ${MEMORY_PROMPT_CHARS} characters: memory_read shows the rest]` : ''),
      );
    }
    if (parts.length === 0) return '';
    return `# Memory\nNotes kept from earlier conversations. Trust them less than what you see in the files now.\n\n${parts.join('\n\n')}`;
  }
}

const scopeSchema = z
  .enum(['workspace', 'global'])
  .optional()
  .describe('"workspace" (default): this project; "global": the user, in every project.');

export function createMemoryTools(memory: Memory): AnyTool[] {
  const memoryRead = defineTool({
    name: 'memory_read',
    description:
      'Read the notes kept across conversations (the workspace’s, or the user’s global ones). They are in your ' +
      'instructions from the start; read them again after appending or when they were cut.',
    inputSchema: z.object({ scope: scopeSchema }),
    readOnly: true,
    needsApproval: false,
    summarize: (input) => `read the ${input.scope ?? 'workspace'} memory`,
    async execute(input) {
      const scope = input.scope ?? 'workspace';
      if (!memory.location(scope)) return { output: `There is no ${scope} memory here.`, isError: true };
      const text = await memory.read(scope);
      return text.trim() ? text : `The ${scope} memory is empty.`;
    },
  });
  const memoryAppend = defineTool({
    name: 'memory_append',
    description:
      'Remember for later conversations a lasting fact about the project (how to build and test it, a convention, a ' +
      'decision and why) or, with scope "global", a preference of the user. One short list item, not progress on ' +
      'the current task. The user approves each note.',
    inputSchema: z.object({
      note: z.string().trim().min(1).max(MAX_NOTE_CHARS).describe('The note, in a sentence or two of markdown.'),
      scope: scopeSchema,
    }),
    readOnly: false,
    needsApproval: true,
    traits: {
      sharedWrite: (input) =>
        input.scope === 'global'
          ? 'it writes your global memory, which every later conversation in every folder reads'
          : undefined,
    },
    summarize: (input) => `remember in the ${input.scope ?? 'workspace'} memory: ${clip(input.note)}`,
    async execute(input) {
      const scope = input.scope ?? 'workspace';
      try {
        await memory.append(scope, input.note);
      } catch (error) {
        return { output: error instanceof Error ? error.message : String(error), isError: true };
      }
      return `Remembered in the ${scope} memory.`;
    },
  });
  return [memoryRead, memoryAppend];
}

function clip(text: string): string {
  const line = text.trim().replace(/\s+/g, ' ');
  return line.length > 120 ? `${line.slice(0, 117)}…` : line;
}
