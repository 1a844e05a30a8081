/**
 * Reads one span the scanner held back (text-call-scanner.ts) as a tool call, a broken tool
 * call, or plain text. JSON that does not parse is repaired with `jsonrepair` (single quotes,
 * trailing commas, unquoted keys, Python literals, a missing closing brace…) only when the span
 * was closed: repairing a span the answer ended inside would "complete" a cut-off file content
 * and run it.
 */
import { jsonrepair } from 'jsonrepair';
import { MAX_ARGUMENT_DEPTH, nestingDepth } from '../tool-call-accumulator';
import type { TextCallFormat } from './text-call-scanner';
import { isXmlParameters, readXmlFunction, readXmlParameters } from './read-xml-parameters';

/** The tools a request offers, by name, with their input schemas. */
export type OfferedTools = ReadonlyMap<string, Record<string, unknown> | undefined>;

export type TextCallReading =
  | { kind: 'call'; name: string; input: Record<string, unknown>; repaired: boolean }
  /** Meant as a call, but unusable: `problem` says why, for the model. */
  | { kind: 'invalid'; name: string; problem: string; repaired: boolean }
  | { kind: 'text' };

export interface CandidateSpan {
  format: TextCallFormat;
  body: string;
  functionName?: string;
  closed: boolean;
}

type Parsed = { ok: true; value: unknown; repaired: boolean } | { ok: false; error: string };

/** Strict JSON first; then, when allowed, what jsonrepair makes of it. */
export function parseLenient(text: string, allowRepair: boolean): Parsed {
  try {
    return { ok: true, value: JSON.parse(text), repaired: false };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!allowRepair) return { ok: false, error: message };
    try {
      return { ok: true, value: JSON.parse(jsonrepair(text)), repaired: true };
    } catch {
      return { ok: false, error: message };
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `<tool_call>{"name": …, "arguments": {…}}</tool_call>` and `<function=name>{…}</function>`. */
export function readTaggedCall(span: CandidateSpan, offered: OfferedTools): TextCallReading {
  const where = span.format === 'function_tag' ? `<function=${span.functionName}>` : '<tool_call>';
  const body = span.body.trim();
  const cutOff = span.closed ? '' : ' (the answer ended before the closing tag)';
  if (span.format === 'function_tag') {
    const name = span.functionName ?? '';
    if (isXmlParameters(body)) return xmlCall(name, body, offered);
    const input = readArguments(body === '' ? '{}' : body, span.closed);
    if (!input.ok) return invalid(name, `the arguments in ${where} are not a JSON object${cutOff}: ${input.error}.`);
    return named(name, input.value, input.repaired, offered);
  }
  if (body === '') return invalid('', `the ${where} block is empty.`);
  const xmlFunction = readXmlFunction(body);
  if (xmlFunction) return xmlCall(xmlFunction.name, xmlFunction.parameters, offered);
  const parsed = parseLenient(body, span.closed);
  if (!parsed.ok || !isObject(parsed.value))
    return invalid(
      guessName(body),
      `the JSON in ${where} could not be read${cutOff}${parsed.ok ? ': it is not an object' : `: ${parsed.error}`}.`,
    );
  const call = parsed.value;
  if (typeof call.name !== 'string' || call.name === '')
    return invalid('', `the object in ${where} has no "name" naming the tool.`, parsed.repaired);
  const raw = call.arguments ?? call.parameters ?? {};
  const input =
    typeof raw === 'string' ? readArguments(raw, span.closed) : { ok: true as const, value: raw, repaired: false };
  if (!input.ok || !isObject(input.value))
    return invalid(call.name, `the "arguments" in ${where} are not a JSON object.`, parsed.repaired);
  return named(call.name, input.value, parsed.repaired || input.repaired, offered);
}

/**
 * A fenced JSON block at the very end of the answer. It is a call only when shaped exactly like
 * one — an object with a string `name` and an `arguments` (or `parameters`) object, nothing else
 * but an optional `"type": "function"` — since fenced JSON is also how models show data.
 */
export function readFencedCall(span: CandidateSpan, offered: OfferedTools): TextCallReading {
  const shaped = callShape(span.body, span.closed);
  if (!shaped) return { kind: 'text' };
  return named(shaped.name, shaped.input, shaped.repaired, offered);
}

/** The call a fenced body is shaped as, or undefined. */
export function callShape(
  body: string,
  allowRepair: boolean,
): { name: string; input: Record<string, unknown>; repaired: boolean } | undefined {
  const parsed = parseLenient(body.trim(), allowRepair);
  if (!parsed.ok || !isObject(parsed.value)) return undefined;
  const call = parsed.value;
  const keys = Object.keys(call).filter((key) => !(key === 'type' && call.type === 'function'));
  const argumentsKey = keys.includes('arguments') ? 'arguments' : 'parameters';
  if (keys.length !== 2 || !keys.includes('name') || !keys.includes(argumentsKey)) return undefined;
  if (typeof call.name !== 'string' || !isObject(call[argumentsKey])) return undefined;
  return { name: call.name, input: call[argumentsKey], repaired: parsed.repaired };
}

function readArguments(
  text: string,
  allowRepair: boolean,
): { ok: true; value: Record<string, unknown>; repaired: boolean } | { ok: false; error: string } {
  const parsed = parseLenient(text.trim(), allowRepair);
  if (!parsed.ok) return parsed;
  if (!isObject(parsed.value)) return { ok: false, error: 'not an object' };
  return { ok: true, value: parsed.value, repaired: parsed.repaired };
}

function named(
  name: string,
  input: Record<string, unknown>,
  repaired: boolean,
  offered: OfferedTools,
): TextCallReading {
  if (!offered.has(name))
    return invalid(
      name,
      `there is no tool named "${name}". Available tools: ${[...offered.keys()].join(', ')}.`,
      repaired,
    );
  if (nestingDepth(input, MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH)
    return invalid(name, `the arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep.`, repaired);
  return { kind: 'call', name, input, repaired };
}

/** Qwen3-Coder's `<parameter=…>` arguments, typed by the tool's schema. */
function xmlCall(name: string, parameters: string, offered: OfferedTools): TextCallReading {
  const input = readXmlParameters(parameters, offered.get(name));
  if (!input.ok) return invalid(name, `the arguments of <function=${name}> could not be read: ${input.error}.`);
  return named(name, input.value, false, offered);
}

function invalid(name: string, problem: string, repaired = false): TextCallReading {
  return { kind: 'invalid', name, problem, repaired };
}

/** The tool a broken call was probably for, to name it in the message. */
function guessName(body: string): string {
  return /"name"\s*:\s*"([^"]{1,64})"/.exec(body)?.[1] ?? '';
}
