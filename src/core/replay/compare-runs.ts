/**
 * Compares two recorded runs (a replay against its original, or any two conversations): their
 * steps aligned side by side, tool calls with their arguments, approvals, files changed, tokens,
 * cost, time, errors, and the first point where they part — as data, and as a plain-text table.
 */
import { addUsage, totalTokens, ZERO_USAGE, type TokenUsage } from '../events/usage';
import { costOf, priceOf } from '../llm/model-info';
import { canonicalJson, preview, type Divergence } from './divergence';
import type { LoadedRecording } from './loaded-recording';
import type { RecordedStep } from './recording';

export interface StepSummary {
  step: number;
  kind: RecordedStep['kind'];
  agentId?: string;
  /** One line for the table: "read_file {"path":"src/app.ts"}", "model chat: Let me look…". */
  label: string;
}

export interface AlignedRow {
  a?: StepSummary;
  b?: StepSummary;
  /** Both runs did the same thing here. */
  same: boolean;
  /** What differs, when they did not. */
  difference?: string;
}

export interface RunTotals {
  conversationId: string;
  steps: number;
  modelCalls: number;
  toolCalls: number;
  usage: TokenUsage;
  tokens: number;
  costUsd: number;
  /** From the first step's start to the last step's end. */
  durationMs: number;
  /** Failed model calls and tool results that were errors. */
  errors: number;
  approvalsAsked: number;
  denials: number;
  files: string[];
  unfinished: boolean;
}

export interface RunComparison {
  a: RunTotals;
  b: RunTotals;
  rows: AlignedRow[];
  /** Where B first parts from A (`expected` is A's, `actual` B's); undefined when they did the same. */
  firstDivergence?: Divergence;
  files: { onlyA: string[]; onlyB: string[]; both: string[] };
}

/** Larger than this, steps are aligned one for one instead of by their longest common sequence. */
const ALIGN_CELLS = 4_000_000;

export function compareRuns(a: LoadedRecording, b: LoadedRecording): RunComparison {
  const left = a.recording.steps.map((step) => describe(a, step));
  const right = b.recording.steps.map((step) => describe(b, step));
  const rows = align(left, right);
  const firstIndex = rows.findIndex((row) => !row.same);
  const first = rows[firstIndex];
  const totalsA = totals(a);
  const totalsB = totals(b);
  const inA = new Set(totalsA.files);
  const inB = new Set(totalsB.files);
  return {
    a: totalsA,
    b: totalsB,
    rows,
    ...(first
      ? {
          firstDivergence: {
            step: first.a?.step ?? first.b?.step ?? 0,
            what: first.difference ?? 'the runs part here',
            expected: first.a?.label ?? '(nothing: run A had ended)',
            actual: first.b?.label ?? '(nothing: run B had ended)',
            ...(first.a?.agentId ? { agentId: first.a.agentId } : {}),
          },
        }
      : {}),
    files: {
      onlyA: totalsA.files.filter((file) => !inB.has(file)),
      onlyB: totalsB.files.filter((file) => !inA.has(file)),
      both: totalsA.files.filter((file) => inB.has(file)),
    },
  };
}

interface Described extends StepSummary {
  /** What must match for two steps to be aligned (kind, agent role, tool or work). */
  shape: string;
  /** Everything that must match for the steps to be the same. */
  value: string;
}

function describe(loaded: LoadedRecording, step: RecordedStep): Described {
  const role = (agentId: string) => (agentId === 'lead' ? 'lead' : 'other');
  switch (step.kind) {
    case 'model': {
      const parts = loaded.answer(step);
      const text = parts.map((part) => (part.type === 'text_delta' ? part.text : '')).join('');
      const calls = parts.flatMap((part) =>
        part.type === 'tool_call' ? [{ name: part.name, input: part.input }] : [],
      );
      const error = step.error ? ` ✗ ${step.error.message}` : '';
      const said = text ? ` ${preview(text, 60)}` : '';
      const called = calls.length ? ` → ${calls.map((call) => call.name).join(', ')}` : '';
      return {
        step: step.step,
        kind: 'model',
        agentId: step.agentId,
        label: `model ${step.work} (${step.model})${said}${called}${error}`,
        shape: `model:${role(step.agentId)}:${step.work}`,
        value: canonicalJson({ model: step.model, text, calls, error: step.error?.message ?? null }),
      };
    }
    case 'tool': {
      const input = loaded.toolInput(step);
      const result = loaded.toolResult(step);
      const decision = step.decision
        ? ` [${step.decision.approved ? 'allowed' : 'denied'} by ${step.decision.source}]`
        : '';
      const files = step.files?.map((file) => file.path) ?? [];
      return {
        step: step.step,
        kind: 'tool',
        agentId: step.agentId,
        label: `${step.toolName} ${preview(input, 80)}${decision}${result?.isError ? ' ✗' : ''}`,
        shape: `tool:${role(step.agentId)}:${step.toolName}`,
        value: canonicalJson({ input, approved: step.decision?.approved ?? null, result: result ?? null, files }),
      };
    }
    case 'prompt': {
      const text = loaded.content(step.text);
      return {
        step: step.step,
        kind: 'prompt',
        label: `${step.redirect ? 'redirect' : 'prompt'} ${preview(text, 80)}`,
        shape: 'prompt',
        value: canonicalJson({ text, redirect: step.redirect ?? false }),
      };
    }
    case 'interrupt':
      return {
        step: step.step,
        kind: 'interrupt',
        label: step.redirect ? 'interrupted (redirect)' : 'interrupted (stop)',
        shape: 'interrupt',
        value: String(step.redirect),
      };
  }
}

/** Steps paired along their longest common sequence of shapes; unpaired steps get a row of their own. */
function align(left: Described[], right: Described[]): AlignedRow[] {
  const pairs = left.length * right.length <= ALIGN_CELLS ? commonSequence(left, right) : oneForOne(left, right);
  const rows: AlignedRow[] = [];
  let i = 0;
  let j = 0;
  for (const [pairI, pairJ] of [...pairs, [left.length, right.length] as const]) {
    while (i < pairI || j < pairJ) {
      // Unpaired on both sides: shown on one row, as what each run did instead.
      const a = i < pairI ? left[i++] : undefined;
      const b = j < pairJ ? right[j++] : undefined;
      rows.push({
        ...(a ? { a: strip(a) } : {}),
        ...(b ? { b: strip(b) } : {}),
        same: false,
        difference: unpaired(a, b),
      });
    }
    if (pairI >= left.length) break;
    const a = left[i++]!;
    const b = right[j++]!;
    const same = a.value === b.value;
    rows.push({
      a: strip(a),
      b: strip(b),
      same,
      ...(same ? {} : { difference: `${a.kind === 'tool' ? `${a.label.split(' ')[0]} ` : ''}${differs(a)}` }),
    });
  }
  return rows;
}

function unpaired(a: Described | undefined, b: Described | undefined): string {
  if (a && b) return `run A: ${a.kind}, run B: ${b.kind}`;
  return a ? `only run A has this ${a.kind} step` : `only run B has this ${b!.kind} step`;
}

function differs(step: Described): string {
  switch (step.kind) {
    case 'model':
      return 'the model answered differently';
    case 'tool':
      return 'call differs (arguments, decision, result or files)';
    case 'prompt':
      return 'the prompt differs';
    case 'interrupt':
      return 'the interruption differs';
  }
}

function strip({ step, kind, agentId, label }: Described): StepSummary {
  return { step, kind, ...(agentId ? { agentId } : {}), label };
}

function commonSequence(left: Described[], right: Described[]): Array<readonly [number, number]> {
  const width = right.length + 1;
  const table = new Uint32Array((left.length + 1) * width);
  for (let i = left.length - 1; i >= 0; i--)
    for (let j = right.length - 1; j >= 0; j--)
      table[i * width + j] =
        left[i]!.shape === right[j]!.shape
          ? table[(i + 1) * width + j + 1]! + 1
          : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
  const pairs: Array<readonly [number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    if (left[i]!.shape === right[j]!.shape) pairs.push([i++, j++]);
    else if (table[(i + 1) * width + j]! >= table[i * width + j + 1]!) i++;
    else j++;
  }
  return pairs;
}

function oneForOne(left: Described[], right: Described[]): Array<readonly [number, number]> {
  const pairs: Array<readonly [number, number]> = [];
  for (let index = 0; index < Math.min(left.length, right.length); index++)
    if (left[index]!.shape === right[index]!.shape) pairs.push([index, index]);
  return pairs;
}

function totals(loaded: LoadedRecording): RunTotals {
  let usage: TokenUsage = ZERO_USAGE;
  let costUsd = 0;
  let errors = 0;
  let approvalsAsked = 0;
  let denials = 0;
  let modelCalls = 0;
  let toolCalls = 0;
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  const files = new Set<string>();
  for (const step of loaded.recording.steps) {
    if (step.kind === 'model' || step.kind === 'tool') {
      start = Math.min(start, step.startedAt);
      end = Math.max(end, step.startedAt + step.durationMs);
    }
    if (step.kind === 'model') {
      modelCalls++;
      if (step.error) errors++;
      const reported = loaded.answer(step).find((part) => part.type === 'usage');
      if (reported?.type === 'usage') {
        usage = addUsage(usage, reported.usage);
        costUsd += costOf(priceOf(step.provider, step.model), reported.usage);
      }
    } else if (step.kind === 'tool') {
      toolCalls++;
      if (loaded.toolResult(step)?.isError) errors++;
      if (step.decision?.asked ?? step.decision?.source === 'user') approvalsAsked++;
      if (step.decision && !step.decision.approved) denials++;
      for (const file of step.files ?? []) files.add(file.path);
    }
  }
  return {
    conversationId: loaded.recording.manifest.conversationId,
    steps: loaded.recording.steps.length,
    modelCalls,
    toolCalls,
    usage,
    tokens: totalTokens(usage),
    costUsd,
    durationMs: Number.isFinite(start) ? Math.max(0, end - start) : 0,
    errors,
    approvalsAsked,
    denials,
    files: [...files].sort(),
    unfinished: loaded.recording.unfinished ?? false,
  };
}
