/**
 * Splits an answer's streamed text into plain text, released as soon as it is known to be
 * plain, and spans that may be tool calls written into the text, held back until they close:
 * `<tool_call>…</tool_call>` (Hermes, Qwen), `<function=name>…</function>` (Llama) and fenced
 * blocks labelled `json` (or not labelled) whose body starts with `{`.
 *
 * Only structure is decided here; whether a span is a call is read-text-call.ts's business, and
 * whether it sits in code is code-context.ts's (CommonMark's rules, on the whole answer). This
 * scanner only decides what to hold back while streaming: a tag inside a top-level fenced block
 * is released as text at once, and so is a tag after a backtick run when a run of the same
 * length comes before the tag's closer (a code span around it, as far as one line shows);
 * anything it cannot rule out is held. The scanner is linear in the answer's size however small
 * the deltas:
 * held spans are kept as lists of pieces and joined once, and closers are searched for in the
 * new piece only (plus a closer's length of overlap).
 */
import { MAX_ARGUMENT_CHARS } from '../tool-call-accumulator';

export type TextCallFormat = 'tool_call_tag' | 'function_tag' | 'fenced_json';

export type ScannedSegment =
  | { kind: 'text'; text: string }
  | {
      kind: 'candidate';
      format: TextCallFormat;
      /** The span as it appeared, markers included. */
      source: string;
      /** What is between the markers. */
      body: string;
      /** `<function=NAME>`: the name. */
      functionName?: string;
      /** False when the answer ended before the closing marker. */
      closed: boolean;
      /** Fenced blocks: nothing but whitespace followed the block. Tags: always true. */
      last: boolean;
    };

const TOOL_CALL_OPEN = '<tool_call>';
const TOOL_CALL_CLOSE = '</tool_call>';
const FUNCTION_OPEN = '<function=';
const FUNCTION_CLOSE = '</function>';
const FUNCTION_NAME = /^[A-Za-z0-9_.-]*/;
const MAX_FUNCTION_NAME = 100;
/** Fence labels under which a tool call may be written. */
const CALL_FENCE_LABELS = new Set(['', 'json', 'json5', 'jsonc', 'tool_call', 'tool_code']);
/** A fence's opening or closing line longer than this is not taken for one. */
const MAX_FENCE_LINE = 200;

interface TagState {
  mode: 'tag';
  format: 'tool_call_tag' | 'function_tag';
  opener: string;
  closer: string;
  functionName?: string;
  pieces: string[];
  size: number;
  /** The last closer.length - 1 characters held: a closer may straddle two deltas. */
  tail: string;
  /** The length of the backtick run that may have opened a code span around the tag; 0: none. */
  codeTicks: number;
  /** The backtick run the held text ends with, which the next delta may continue. */
  run: number;
}

interface FenceState {
  mode: 'fence';
  marker: string;
  openerLine: string;
  /** Complete lines of the body. */
  pieces: string[];
  /** The body's line still arriving. */
  line: string;
  size: number;
  /** The body's first characters, until it is known to start with `{`. */
  head: string;
}

interface AfterFenceState {
  mode: 'after_fence';
  source: string;
  body: string;
  whitespace: string;
}

type State =
  | { mode: 'prose' }
  | { mode: 'code'; marker: string }
  | TagState
  | FenceState
  | AfterFenceState
  /** A held span grew past any tool call's size: the rest of the answer is text. */
  | { mode: 'passthrough' };

type Opener =
  | { kind: 'wait' }
  | { kind: 'none' }
  | { kind: 'tag'; format: TagState['format']; length: number; functionName?: string };

export class TextCallScanner {
  private state: State = { mode: 'prose' };
  /** Prose or code text whose meaning depends on what comes next (a few characters). */
  private undecided = '';
  private atLineStart = true;
  /** Length of the backtick run that opened the current inline code span; 0 outside one. */
  private inlineTicks = 0;
  private out: ScannedSegment[] = [];

  /** Feeds a text delta; returns what is decided so far. */
  push(text: string): ScannedSegment[] {
    let rest = text;
    while (rest.length > 0) rest = this.step(rest);
    return this.take();
  }

  /** The answer is complete: everything still held is decided now. */
  end(): ScannedSegment[] {
    const state = this.state;
    this.state = { mode: 'prose' };
    this.emitText(this.undecided);
    this.undecided = '';
    if (state.mode === 'tag') {
      const body = state.pieces.join('');
      this.emitCandidate(state.format, state.opener + body, body, false, true, state.functionName);
    } else if (state.mode === 'fence') {
      const closed = state.line.length <= MAX_FENCE_LINE && isClosingFence(state.line, state.marker);
      const body = state.pieces.join('') + (closed ? '' : state.line);
      this.emitCandidate('fenced_json', state.openerLine + body + (closed ? state.line : ''), body, closed, true);
    } else if (state.mode === 'after_fence') {
      this.emitCandidate('fenced_json', state.source + state.whitespace, state.body, true, true);
    }
    return this.take();
  }

  private step(input: string): string {
    switch (this.state.mode) {
      case 'prose':
        return this.prose(input);
      case 'code':
        return this.code(input, this.state.marker);
      case 'tag':
        return this.tag(input, this.state);
      case 'fence':
        return this.fence(input, this.state);
      case 'after_fence':
        return this.afterFence(input, this.state);
      case 'passthrough':
        this.emitText(input);
        return '';
    }
  }

  private prose(input: string): string {
    const text = this.undecided + input;
    this.undecided = '';
    const wait = (at: number): string => {
      this.emitText(text.slice(0, at));
      this.undecided = text.slice(at);
      return '';
    };
    let index = 0;
    while (index < text.length) {
      if (this.atLineStart) {
        const fence = fenceOpener(text, index);
        if (fence.kind === 'wait') return wait(index);
        if (fence.kind === 'fence') {
          this.emitText(text.slice(0, index));
          const openerLine = text.slice(index, fence.lineEnd);
          if (CALL_FENCE_LABELS.has(fence.label.toLowerCase())) {
            this.state = { mode: 'fence', marker: fence.marker, openerLine, pieces: [], line: '', size: 0, head: '' };
          } else {
            this.emitText(openerLine);
            this.state = { mode: 'code', marker: fence.marker };
          }
          this.inlineTicks = 0;
          return text.slice(fence.lineEnd);
        }
        this.atLineStart = false;
      }
      const char = text[index];
      if (char === '\n') {
        this.atLineStart = true;
        // Inline code does not span lines here: a stray backtick must not hide later calls.
        this.inlineTicks = 0;
        index++;
      } else if (char === '\\' && this.inlineTicks === 0) {
        // An escaped backtick opens no code span; an escaped `<` opens no call (it is shown as is).
        if (index + 1 === text.length) return wait(index);
        const next = text[index + 1];
        index += next === '`' || next === '<' || next === '\\' ? 2 : 1;
      } else if (char === '`') {
        let end = index;
        while (end < text.length && text[end] === '`') end++;
        if (end === text.length) return wait(index);
        const run = end - index;
        if (this.inlineTicks === 0) this.inlineTicks = run;
        else if (run === this.inlineTicks) this.inlineTicks = 0;
        index = end;
      } else if (char === '<') {
        const opener = tagOpener(text, index);
        if (opener.kind === 'wait') return wait(index);
        if (opener.kind === 'tag') {
          this.emitText(text.slice(0, index));
          const openerText = text.slice(index, index + opener.length);
          this.state = {
            mode: 'tag',
            format: opener.format,
            opener: openerText,
            closer: opener.format === 'tool_call_tag' ? TOOL_CALL_CLOSE : FUNCTION_CLOSE,
            ...(opener.functionName !== undefined ? { functionName: opener.functionName } : {}),
            pieces: [],
            size: 0,
            tail: '',
            codeTicks: this.inlineTicks,
            run: 0,
          };
          return text.slice(index + opener.length);
        }
        index++;
      } else {
        index++;
      }
    }
    this.emitText(text);
    return '';
  }

  /** Inside a fenced block that cannot be a call: text, up to the closing fence. */
  private code(input: string, marker: string): string {
    const text = this.undecided + input;
    this.undecided = '';
    let index = 0;
    while (index < text.length) {
      const newline = text.indexOf('\n', index);
      if (this.atLineStart) {
        if (newline < 0) {
          const partial = text.slice(index);
          if (couldBeClosingFence(partial, marker)) {
            this.emitText(text.slice(0, index));
            this.undecided = partial;
            return '';
          }
        } else if (isClosingFence(text.slice(index, newline + 1), marker)) {
          this.emitText(text.slice(0, newline + 1));
          this.state = { mode: 'prose' };
          this.atLineStart = true;
          return text.slice(newline + 1);
        }
      }
      if (newline < 0) {
        this.atLineStart = false;
        break;
      }
      this.atLineStart = true;
      index = newline + 1;
    }
    this.emitText(text);
    return '';
  }

  private tag(input: string, state: TagState): string {
    const haystack = state.tail + input;
    const at = haystack.indexOf(state.closer);
    const consumed = at - state.tail.length;
    if (state.codeTicks > 0) {
      const spanEnd = this.codeSpanEnd(state, input, at < 0 ? input.length : Math.max(0, consumed));
      if (spanEnd >= 0) {
        // The span closes before the tag does: the tag was an example in it.
        this.emitText(state.opener + state.pieces.join('') + input.slice(0, spanEnd));
        this.state = { mode: 'prose' };
        this.inlineTicks = 0;
        this.atLineStart = false;
        return input.slice(spanEnd);
      }
    }
    if (at < 0) {
      state.pieces.push(input);
      state.size += input.length;
      state.tail = haystack.slice(-(state.closer.length - 1));
      if (state.size > MAX_ARGUMENT_CHARS) this.giveUp(state.opener + state.pieces.join(''));
      return '';
    }
    const body = state.pieces.join('') + input.slice(0, Math.max(0, consumed));
    // The closer may have started in the tail: those characters are already in the pieces.
    const bodyText = consumed < 0 ? body.slice(0, body.length + consumed) : body;
    this.emitCandidate(state.format, state.opener + bodyText + state.closer, bodyText, true, true, state.functionName);
    this.state = { mode: 'prose' };
    this.atLineStart = false;
    this.inlineTicks = state.codeTicks;
    return input.slice(consumed + state.closer.length);
  }

  /**
   * Where in `input` (before `limit`) a backtick run as long as the one before the tag ends, or
   * -1. A run that reaches `limit` at the end of the input may go on in the next delta.
   */
  private codeSpanEnd(state: TagState, input: string, limit: number): number {
    for (let index = 0; index < limit; index++) {
      if (input.charCodeAt(index) === 96) {
        state.run++;
        continue;
      }
      if (state.run === state.codeTicks) return index;
      state.run = 0;
    }
    if (limit < input.length && state.run === state.codeTicks) return limit;
    return -1;
  }

  private fence(input: string, state: FenceState): string {
    let start = 0;
    while (start < input.length) {
      const newline = input.indexOf('\n', start);
      const piece = newline < 0 ? input.slice(start) : input.slice(start, newline + 1);
      start += piece.length;
      if (newline < 0) {
        state.line += piece;
        // A partial line that may yet close the fence says nothing about the body.
        if (!couldBeClosingFence(state.line, state.marker) && !this.bodyMayBeObject(state, piece))
          return this.notACall(state, state.line, false, input.slice(start));
        break;
      }
      const line = state.line + piece;
      state.line = '';
      if (line.length <= MAX_FENCE_LINE && isClosingFence(line, state.marker)) {
        const body = state.pieces.join('');
        this.state = { mode: 'after_fence', source: state.openerLine + body + line, body, whitespace: '' };
        this.atLineStart = true;
        return input.slice(start);
      }
      if (!this.bodyMayBeObject(state, piece)) return this.notACall(state, line, true, input.slice(start));
      state.pieces.push(line);
    }
    state.size += input.length;
    if (state.size > MAX_ARGUMENT_CHARS) this.giveUp(state.openerLine + state.pieces.join('') + state.line);
    return '';
  }

  /** False once the fenced body's first characters show it is not a JSON object. */
  private bodyMayBeObject(state: FenceState, piece: string): boolean {
    if (state.head.length >= 64) return true;
    state.head += piece;
    const opening = state.head.trimStart();
    return opening === '' || opening.startsWith('{');
  }

  /** Not an object: a plain code block after all, released as it is. */
  private notACall(state: FenceState, lastLine: string, lineDone: boolean, rest: string): string {
    this.emitText(state.openerLine + state.pieces.join('') + lastLine);
    this.state = { mode: 'code', marker: state.marker };
    this.atLineStart = lineDone;
    return rest;
  }

  /** A closed fenced block is a call only if nothing but whitespace follows it. */
  private afterFence(input: string, state: AfterFenceState): string {
    const whitespace = /^\s*/.exec(input)?.[0] ?? '';
    if (whitespace.length === input.length) {
      state.whitespace += input;
      return '';
    }
    this.emitCandidate('fenced_json', state.source, state.body, true, false);
    this.state = { mode: 'prose' };
    this.atLineStart = true;
    return state.whitespace + input;
  }

  private giveUp(held: string): void {
    this.emitText(held);
    this.state = { mode: 'passthrough' };
  }

  private emitText(text: string): void {
    if (text === '') return;
    const previous = this.out.at(-1);
    if (previous?.kind === 'text') previous.text += text;
    else this.out.push({ kind: 'text', text });
  }

  private emitCandidate(
    format: TextCallFormat,
    source: string,
    body: string,
    closed: boolean,
    last: boolean,
    functionName?: string,
  ): void {
    this.out.push({
      kind: 'candidate',
      format,
      source,
      body,
      closed,
      last,
      ...(functionName !== undefined ? { functionName } : {}),
    });
  }

  private take(): ScannedSegment[] {
    const out = this.out;
    this.out = [];
    return out;
  }
}

type FenceOpener =
  { kind: 'wait' } | { kind: 'none' } | { kind: 'fence'; marker: string; label: string; lineEnd: number };

/** A fence opening at `index` (a line start): up to 3 spaces, 3+ backticks or tildes, a label. */
function fenceOpener(text: string, index: number): FenceOpener {
  let at = index;
  while (at < text.length && text[at] === ' ' && at - index < 3) at++;
  if (at === text.length) return { kind: 'wait' };
  const char = text[at];
  if (char !== '`' && char !== '~') return { kind: 'none' };
  let end = at;
  while (end < text.length && text[end] === char) end++;
  if (end === text.length) return { kind: 'wait' };
  if (end - at < 3) return { kind: 'none' };
  const newline = text.indexOf('\n', end);
  if (newline < 0) return text.length - index > MAX_FENCE_LINE ? { kind: 'none' } : { kind: 'wait' };
  const label = text.slice(end, newline).trim();
  // A backtick fence's label has no backticks: ```like this``` is inline code.
  if (char === '`' && label.includes('`')) return { kind: 'none' };
  return { kind: 'fence', marker: text.slice(at, end), label: label.split(/\s+/)[0] ?? '', lineEnd: newline + 1 };
}

function tagOpener(text: string, index: number): Opener {
  const available = text.slice(index, index + TOOL_CALL_OPEN.length);
  if (available === TOOL_CALL_OPEN) return { kind: 'tag', format: 'tool_call_tag', length: TOOL_CALL_OPEN.length };
  const atEnd = (length: number) => index + length === text.length;
  if (TOOL_CALL_OPEN.startsWith(available) && atEnd(available.length)) return { kind: 'wait' };
  const functionStart = text.slice(index, index + FUNCTION_OPEN.length);
  if (functionStart === FUNCTION_OPEN) {
    const nameStart = index + FUNCTION_OPEN.length;
    const name = FUNCTION_NAME.exec(text.slice(nameStart, nameStart + MAX_FUNCTION_NAME + 1))?.[0] ?? '';
    if (name.length > MAX_FUNCTION_NAME) return { kind: 'none' };
    const nameEnd = nameStart + name.length;
    if (nameEnd === text.length) return { kind: 'wait' };
    if (text[nameEnd] !== '>' || name === '') return { kind: 'none' };
    return { kind: 'tag', format: 'function_tag', length: nameEnd + 1 - index, functionName: name };
  }
  if (FUNCTION_OPEN.startsWith(functionStart) && atEnd(functionStart.length)) return { kind: 'wait' };
  return { kind: 'none' };
}

/** A complete line (with or without its newline) that closes a fence opened with `marker`. */
function isClosingFence(line: string, marker: string): boolean {
  const char = marker[0] === '~' ? '~' : '`';
  const match = /^ {0,3}([`~]+)[ \t]*\r?\n?$/.exec(line);
  return match !== null && match[1]!.length >= marker.length && [...match[1]!].every((c) => c === char);
}

/** The start of a line that may still turn out to close the fence. */
function couldBeClosingFence(partial: string, marker: string): boolean {
  if (partial.length > MAX_FENCE_LINE) return false;
  const char = marker[0] === '~' ? '~' : '`';
  const match = /^ {0,3}([`~]*)[ \t]*\r?$/.exec(partial);
  return match !== null && [...match[1]!].every((c) => c === char);
}
