/**
 * Edit benchmark (TESTING.md "Edits"): one `edit_file` call that replaces a unique marker line
 * near the end of a 10 MB and a 100 MB file of code-like text, run through the real tool on a
 * NodeWorkspace as the loop runs it (schema parse, then execute), side by side with a plain
 * `fs.readFile` + `fs.writeFile` of the same file. Warm-ups first, then medians.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createFileTools } from '../../src/core/tools/builtin/file-tools';
import type { AnyTool, ToolContext } from '../../src/core/tools/tool';
import { NodeWorkspace } from '../../src/node/node-workspace';
import { median } from './stats';

const MARKERS = ['// OPENAGENT-BENCH-MARKER: first state', '// OPENAGENT-BENCH-MARKER: second state'] as const;

export interface EditResult {
  sizeMb: number;
  editMs: number;
  plainMs: number;
  runs: number;
}

/** Writes about `sizeMb` MB of ordinary-looking TypeScript with the marker 99% of the way in. */
function writeCodeFile(file: string, sizeMb: number): void {
  const target = sizeMb * 1024 * 1024;
  const chunks: string[] = [];
  let size = 0;
  let markerWritten = false;
  for (let line = 0; size < target; line++) {
    if (!markerWritten && size >= target * 0.99) {
      chunks.push(`${MARKERS[0]}\n`);
      markerWritten = true;
    }
    const text =
      line % 7 === 0
        ? `export function handler${line}(input: Request, options?: Options): Promise<Response> {\n`
        : line % 7 === 6
          ? '}\n'
          : `  const value${line} = compute(input, ${line}, "item-${line % 1000}") + offset; // step ${line % 97}\n`;
    chunks.push(text);
    size += text.length;
  }
  fs.writeFileSync(file, chunks.join(''));
}

async function runEdit(tool: AnyTool, context: ToolContext, from: string, to: string): Promise<number> {
  const started = performance.now();
  const input = tool.inputSchema.parse({ path: 'big.ts', edits: [{ oldText: from, newText: to }] });
  const result = await tool.execute(input, context);
  const elapsed = performance.now() - started;
  if (typeof result !== 'string' && result.isError) throw new Error(`edit_file failed: ${result.output}`);
  return elapsed;
}

async function runPlain(file: string): Promise<number> {
  const started = performance.now();
  const bytes = await fs.promises.readFile(file);
  await fs.promises.writeFile(file, bytes);
  return performance.now() - started;
}

/** Times edit_file and the plain read + write, alternating so both see the same machine state. */
export async function measureEdit(sizeMb: number, warmups: number, runs: number): Promise<EditResult> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-edit-bench-'));
  try {
    const file = path.join(root, 'big.ts');
    writeCodeFile(file, sizeMb);
    const tool = createFileTools(new NodeWorkspace(root)).find((candidate) => candidate.name === 'edit_file');
    if (!tool) throw new Error('edit_file is missing');
    const context: ToolContext = {
      conversationId: 'bench',
      agentId: 'lead',
      toolCallId: 'bench',
      signal: new AbortController().signal,
    };
    const edits: number[] = [];
    const plains: number[] = [];
    for (let index = 0; index < warmups + runs; index++) {
      // The marker flips between two states, so every call has exactly one match to replace.
      const editMs = await runEdit(tool, context, MARKERS[index % 2]!, MARKERS[(index + 1) % 2]!);
      const plainMs = await runPlain(file);
      if (index >= warmups) {
        edits.push(editMs);
        plains.push(plainMs);
      }
    }
    return { sizeMb, editMs: median(edits), plainMs: median(plains), runs };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** The rows of the benchmark table: 10 MB (2 warm-ups, 7 runs) and 100 MB (1 warm-up, 3 runs). */
export async function measureEdits(): Promise<Array<EditResult & { target: string }>> {
  const small = await measureEdit(10, 2, 7);
  const large = await measureEdit(100, 1, 3);
  return [
    { ...small, target: '≤ 150 ms' },
    { ...large, target: '≤ 1.5 s' },
  ];
}
