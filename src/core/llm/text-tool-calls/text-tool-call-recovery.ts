/**
 * Turns an answer's text into text parts and tool-call parts, for servers that leave a local
 * model's tool calls in the text (a chat template the server's parser does not know, a model
 * that drifts from its format). The rule, chosen so that nothing runs unless the model clearly
 * called it:
 *
 * - `<tool_call>{"name": …, "arguments": {…}}</tool_call>` and `<function=name>{…}</function>`
 *   (or Qwen3-Coder's `<parameter=key>value</parameter>` arguments in either) outside code and
 *   reasoning are calls: that syntax is a model's call format, and a model showing it as an
 *   example puts it in code. What is code is CommonMark's answer (code-context.ts): fenced and
 *   indented blocks at any depth of lists and quotes, code spans over line breaks, `<pre>`…;
 *   reasoning is a `<think>` block.
 * - A fenced JSON block is a call only when it is the last thing in the answer (a model that
 *   calls a tool stops to wait for the result; one that explains goes on writing), it is shaped
 *   exactly like a call (read-text-call.ts), the answer made no other call, and its paragraph
 *   does not introduce it as an example ("for example", "e.g.", "for instance").
 * - A call whose tool is not offered, whose JSON cannot be read even after repair, that was cut
 *   off by the output limit, or a fenced call with another call-shaped block earlier in the
 *   answer (which one was meant?) becomes `tool_call_invalid` with a message saying what was
 *   wrong and the format that works: the model reads it as the call's result and can try again.
 *
 * Recovered spans are not text any more: the user sees the call, not its JSON. Only answers to
 * requests that offer tools (and do not forbid them) are read this way.
 *
 * Whether a span sits in code can depend on what follows it (a code span's closing backticks),
 * so from the first span that may be a call the rest of the answer is held, and read as a
 * whole when it ends: calls come out at the end of the answer, where the loop runs them.
 */
import { randomUUID } from 'node:crypto';
import type { LlmStreamPart, StopReason, TextToolCallNote } from '../llm-client';
import { callShape, readFencedCall, readTaggedCall, type OfferedTools, type TextCallReading } from './read-text-call';
import { TextCallScanner, type ScannedSegment } from './text-call-scanner';
import { spansOutsideCode, type DocumentPiece } from './code-context';

const FORMAT_HINT =
  'To call a tool, use the tool-calling interface, or write the call outside code blocks exactly as ' +
  '<tool_call>{"name": "tool_name", "arguments": {...}}</tool_call> with valid JSON, one block per call.';
/** Words that make the fenced block after them an example. */
const EXAMPLE_LEAD = /\b(for instance|examples?)\b|\be\.g\./i;
const SOURCE_PREVIEW_CHARS = 2_000;
/** A tool name every API accepts back in the history. */
const SAFE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

type Candidate = Extract<ScannedSegment, { kind: 'candidate' }>;
/** A segment held until the answer ends; `span` numbers the spans whose place is to be read. */
type Held = { segment: ScannedSegment; span?: number };

export class TextToolCallRecovery {
  private readonly scanner = new TextCallScanner();
  private readonly offered: OfferedTools;
  /** The end of the plain text so far, for the example rule. */
  private recentText = '';
  /** Fenced blocks shaped like calls that were not taken as calls. */
  private fencedCallShapes = 0;
  private recovered = 0;
  private nativeCalls = false;
  /** The whole answer so far, spans marked, for code-context.ts. */
  private readonly document: DocumentPiece[] = [];
  private spans = 0;
  /** Everything from the first span that may be a call on. */
  private held: Held[] | undefined;

  constructor(
    offered: ReadonlyArray<{ name: string; inputSchema?: Record<string, unknown> }>,
    private readonly newId: () => string = () => `call_text_${randomUUID().replace(/-/g, '')}`,
  ) {
    this.offered = new Map(offered.map((tool) => [tool.name, tool.inputSchema]));
  }

  /** Calls (valid or not) read from the text so far. */
  get recoveredCalls(): number {
    return this.recovered;
  }

  text(delta: string): LlmStreamPart[] {
    return this.accept(this.scanner.push(delta));
  }

  /** The server returned a tool call of its own: a trailing fenced block is then not one. */
  nativeCall(): void {
    this.nativeCalls = true;
  }

  /** The answer is complete. */
  end(stopReason: StopReason): LlmStreamPart[] {
    const parts = this.accept(this.scanner.end());
    const held = this.held;
    if (!held) return parts;
    this.held = undefined;
    const outside = spansOutsideCode(this.document);
    return [
      ...parts,
      ...this.convert(
        held.map(({ segment, span }) =>
          segment.kind === 'candidate' && span !== undefined && !outside[span]
            ? { kind: 'text', text: segment.source }
            : segment,
        ),
        stopReason,
      ),
    ];
  }

  /** The answer failed midway: whatever was held goes out as text (nothing of it will run). */
  abandon(): LlmStreamPart[] {
    const text = [...(this.held ?? []).map(({ segment }) => segment), ...this.scanner.end()]
      .map((segment) => (segment.kind === 'text' ? segment.text : segment.source))
      .join('');
    this.held = undefined;
    return text ? [{ type: 'text_delta', text }] : [];
  }

  /** Records what the scanner decided; passes on what cannot be a call until a span is held. */
  private accept(segments: ScannedSegment[]): LlmStreamPart[] {
    const now: ScannedSegment[] = [];
    for (const segment of segments) {
      let span: number | undefined;
      if (segment.kind === 'text' || (segment.format === 'fenced_json' && !segment.last)) {
        const text = segment.kind === 'text' ? segment.text : segment.source;
        const previous = this.document.at(-1);
        if (previous?.kind === 'text') previous.text += text;
        else this.document.push({ kind: 'text', text });
      } else {
        span = this.spans++;
        this.document.push(documentPiece(segment));
      }
      if (span !== undefined || this.held)
        (this.held ??= []).push({ segment, ...(span !== undefined ? { span } : {}) });
      else now.push(segment);
    }
    return this.convert(now, undefined);
  }

  private convert(segments: ScannedSegment[], stopReason: StopReason | undefined): LlmStreamPart[] {
    const parts: LlmStreamPart[] = [];
    const text = (value: string) => {
      if (value === '') return;
      const previous = parts.at(-1);
      if (previous?.type === 'text_delta') previous.text += value;
      else parts.push({ type: 'text_delta', text: value });
      this.recentText = (this.recentText + value).slice(-400);
    };
    for (const segment of segments) {
      if (segment.kind === 'text') {
        text(segment.text);
        continue;
      }
      const reading = this.read(segment, stopReason);
      if (reading.kind === 'text') text(segment.source);
      else parts.push(this.callPart(reading, segment));
    }
    return parts;
  }

  private read(candidate: Candidate, stopReason: StopReason | undefined): TextCallReading {
    if (candidate.format !== 'fenced_json') {
      if (!candidate.closed && stopReason === 'max_tokens')
        return {
          kind: 'invalid',
          name: candidate.functionName ?? /"name"\s*:\s*"([^"]{1,64})"/.exec(candidate.body)?.[1] ?? '',
          problem: 'it was cut off by the output limit before its closing tag. Send it again with less in it.',
          repaired: false,
        };
      return readTaggedCall(candidate, this.offered);
    }
    if (!candidate.last) {
      if (callShape(candidate.body, candidate.closed)) this.fencedCallShapes++;
      return { kind: 'text' };
    }
    // A block the output limit cut is continued as text by the loop.
    if (this.nativeCalls || this.recovered > 0 || (!candidate.closed && stopReason === 'max_tokens'))
      return { kind: 'text' };
    if (EXAMPLE_LEAD.test(lastParagraph(this.recentText))) return { kind: 'text' };
    const reading = readFencedCall(candidate, this.offered);
    if (reading.kind === 'text' || this.fencedCallShapes === 0) return reading;
    return {
      kind: 'invalid',
      name: reading.name,
      problem: `it has ${this.fencedCallShapes + 1} JSON blocks shaped like tool calls, so which one to run is unclear.`,
      repaired: reading.repaired,
    };
  }

  private callPart(reading: Exclude<TextCallReading, { kind: 'text' }>, candidate: Candidate): LlmStreamPart {
    this.recovered++;
    const fromText: TextToolCallNote = {
      format: candidate.format,
      repaired: reading.repaired,
      source: preview(candidate.source),
    };
    if (reading.kind === 'call')
      return { type: 'tool_call', id: this.newId(), name: reading.name, input: reading.input, fromText };
    return {
      type: 'tool_call_invalid',
      id: this.newId(),
      name: SAFE_NAME.test(reading.name) ? reading.name : 'unknown_tool',
      rawArguments: candidate.source,
      error: `Your answer's text held a tool call that could not be used: ${reading.problem} Nothing was run. ${FORMAT_HINT}`,
      fromText,
    };
  }
}

function documentPiece(candidate: Candidate): DocumentPiece {
  if (candidate.format !== 'fenced_json') return { kind: 'tagged', source: candidate.source };
  const opener = candidate.source.slice(0, candidate.source.indexOf('\n') + 1);
  return {
    kind: 'fenced',
    opener,
    body: candidate.body,
    closer: candidate.source.slice(opener.length + candidate.body.length),
  };
}

/** The paragraph a block follows: the text since the last blank line before it. */
function lastParagraph(text: string): string {
  const trimmed = text.trimEnd();
  return trimmed.slice(trimmed.lastIndexOf('\n\n') + 1);
}

function preview(source: string): string {
  return source.length <= SOURCE_PREVIEW_CHARS
    ? source
    : `${source.slice(0, SOURCE_PREVIEW_CHARS)}… [${source.length - SOURCE_PREVIEW_CHARS} more characters]`;
}
