/**
 * Policy as code (SPEC 4.3): `.openagent/agent.yaml`, parsed with `yaml` and validated with
 * zod. Every problem is reported with the line and column of the value at fault, for the
 * editor's diagnostics; a file with problems is not applied at all (half a policy could be
 * looser than intended). The JSON Schema shipped for editors (schemas/agent-policy.schema.json)
 * is generated from the same zod schema.
 */
import type { parseDocument } from 'yaml';
import { z } from 'zod';
import { yaml } from '../text/yaml';
import { approverPolicySchema } from './approver-schema';
import { SANDBOX_MODES } from './sandbox-modes';
import { reviewerSetting } from './reviewer-setting';

/** A policy file larger than this is refused (a 10 MB file froze every command for 30 s). */
export const MAX_POLICY_BYTES = 256 * 1024;
/** Patterns per list, and characters per pattern. */
const MAX_PATTERNS = 1_000;
const MAX_PATTERN_CHARS = 1_000;

/** The kinds of work a model route can match (SPEC 2.3). */
export const WORK_KINDS = ['chat', 'code', 'subagent', 'compaction', 'final_summary'] as const;

const modelRef = z
  .string()
  .regex(/^[a-z][a-z0-9-]*\/\S+$/, 'a model is "provider/model", e.g. "anthropic/claude-sonnet-4-6"')
  .describe('provider/model, e.g. anthropic/claude-sonnet-4-6 or ollama/qwen3-coder');
const toolPattern = z
  .string()
  .min(1)
  .max(MAX_PATTERN_CHARS)
  .describe('A tool name; * matches any run of characters (mcp__github__*)');
const commandPattern = z
  .string()
  .min(1)
  .max(MAX_PATTERN_CHARS)
  .describe('A command; * at the end matches any arguments ("git push*")');
const hostPattern = z
  .string()
  .min(1)
  .max(MAX_PATTERN_CHARS)
  .describe('A host name; * matches any run of characters (docs.*, *.python.org)');
const usd = z.number().positive().describe('US dollars');
const tokens = z.number().int().positive().describe('tokens (input + output)');

export const agentPolicySchema = z
  .strictObject({
    model_policy: z
      .strictObject({
        default: modelRef.optional(),
        routes: z
          .array(
            z.strictObject({
              match: z.strictObject({ task: z.enum(WORK_KINDS).describe('The kind of work this route serves') }),
              model: modelRef,
            }),
          )
          .optional(),
      })
      .optional()
      .describe('Which model serves which kind of work'),
    tools: z
      .strictObject({
        allow: z.array(toolPattern).max(MAX_PATTERNS).optional().describe('Only these tools are offered (when set)'),
        deny: z
          .array(toolPattern)
          .max(MAX_PATTERNS)
          .optional()
          .describe('These tools are never run; deny wins over allow'),
        bash: z
          .strictObject({
            allow: z
              .array(commandPattern)
              .max(MAX_PATTERNS)
              .optional()
              .describe('Commands that run without asking (every segment must match)'),
            deny: z
              .array(commandPattern)
              .max(MAX_PATTERNS)
              .optional()
              .describe('Commands refused (any segment matching)'),
          })
          .optional(),
      })
      .optional(),
    approvals: z
      .strictObject({
        require_for: z.array(toolPattern).max(MAX_PATTERNS).optional().describe('Tools that always ask'),
        auto_approve: z
          .array(toolPattern)
          .max(MAX_PATTERNS)
          .optional()
          .describe(
            'Tools that never ask; "read_only" stands for every tool that only reads, "confined" for every command that runs in the sandbox',
          ),
        ...approverPolicySchema,
        reviewer: reviewerSetting.optional(),
      })
      .optional(),
    budget: z
      .strictObject({
        per_conversation_usd: usd.optional(),
        daily_usd: usd.optional(),
        monthly_usd: usd.optional(),
        per_conversation_tokens: tokens.optional(),
        daily_tokens: tokens.optional(),
        monthly_tokens: tokens.optional(),
        team_daily_usd: usd.optional().describe('US dollars the whole team may spend per UTC day (team database)'),
        team_monthly_usd: usd.optional().describe('US dollars the whole team may spend per UTC month (team database)'),
        team_daily_tokens: tokens.optional(),
        team_monthly_tokens: tokens.optional(),
        member_daily_usd: usd.optional().describe('US dollars each member may spend per UTC day (team database)'),
        member_monthly_usd: usd.optional().describe('US dollars each member may spend per UTC month (team database)'),
        member_daily_tokens: tokens.optional(),
        member_monthly_tokens: tokens.optional(),
        on_exceeded: z.enum(['block', 'warn']).optional(),
        on_unreachable: z
          .enum(['block', 'warn'])
          .optional()
          .describe(
            'With team limits set and the team database unreachable: stop (block, the default) or go on (warn)',
          ),
      })
      .optional(),
    memory: z.strictObject({ scope: z.enum(['workspace', 'global']).optional() }).optional(),
    sandbox: z
      .enum(SANDBOX_MODES)
      .optional()
      .describe(
        'Whether agent commands run confined (bubblewrap on Linux): auto (where available), required (refused ' +
          "without a sandbox) or off. A workspace can tighten the user's choice, never loosen it",
      ),
    commands: z
      .strictObject({
        network: z
          .boolean()
          .optional()
          .describe("Confined commands may reach the network (only the user's policy can grant it)"),
        pass_env: z
          .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name'))
          .max(MAX_PATTERNS)
          .optional()
          .describe("Secret-looking environment variables commands still get (only the user's policy can pass them)"),
      })
      .optional(),
    network: z
      .strictObject({
        fetch_allow: z
          .array(hostPattern)
          .max(MAX_PATTERNS)
          .optional()
          .describe('Hosts web_fetch reads without asking ("docs.*", "*.python.org")'),
        fetch_private: z
          .array(hostPattern)
          .max(MAX_PATTERNS)
          .optional()
          .describe(
            "Hosts web_fetch may read at loopback, private or link-local addresses (only the user's policy can grant it)",
          ),
      })
      .optional()
      .describe('What web_fetch may read'),
    worktree: z
      .strictObject({
        setup: z
          .string()
          .min(1)
          .max(MAX_PATTERN_CHARS)
          .optional()
          .describe(
            'A command run once in each new session worktree, confined like agent commands, before the session starts (e.g. "npm ci"); its output is shown in the session',
          ),
      })
      .optional()
      .describe('Sessions that work in their own git worktree'),
  })
  .describe('OpenAgent policy for this workspace (.openagent/agent.yaml)');

export type AgentPolicy = z.infer<typeof agentPolicySchema>;

export interface PolicyProblem {
  message: string;
  /** 0-based, for editor ranges. */
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

export interface ParsedPolicy {
  /** Undefined when there are problems: a policy with errors is not applied. */
  policy?: AgentPolicy;
  problems: PolicyProblem[];
}

/** Aliases (`*name`) a policy may use: enough for sharing a list, far from an alias bomb. */
const MAX_ALIASES = 50;

/** A problem with the whole file (not one value in it), at its first character. */
export function wholeFileProblem(message: string): PolicyProblem {
  return { message, line: 0, column: 0, endLine: 0, endColumn: 0 };
}

/**
 * Never throws: whatever the text holds (an alias bomb, nesting deep enough to overflow the
 * parser, binary bytes, the wrong types) comes back as problems, and a file with problems has
 * no policy.
 */
export function parseAgentPolicy(text: string): ParsedPolicy {
  // Checked before parsing: a huge file is refused whole, fast, with its size.
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_POLICY_BYTES)
    return {
      problems: [
        wholeFileProblem(
          `The policy is ${Math.round(bytes / 1024)} KB; at most ${MAX_POLICY_BYTES / 1024} KB is read. Nothing in it is applied.`,
        ),
      ],
    };
  // NUL or bytes that are not UTF-8 (decoded as U+FFFD): not a text file at all.
  if (text.includes('\u0000') || text.includes('\uFFFD'))
    return { problems: [wholeFileProblem('It is not a text file (it holds NUL or non-UTF-8 bytes).')] };
  try {
    return parseText(text);
  } catch (error) {
    return { problems: [wholeFileProblem(unreadable(error))] };
  }
}

/** Words for what the YAML library threw. */
function unreadable(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/alias count|resource exhaustion/i.test(message))
    return `Its YAML aliases expand too much (an alias bomb?): at most ${MAX_ALIASES} alias uses are read.`;
  if (error instanceof RangeError || /call stack/i.test(message)) return 'It is nested too deeply to read.';
  return `It cannot be read as YAML: ${message.split('\n')[0]}`;
}

/** The YAML library's words where they would not tell a person what to change. */
function syntaxWords(message: string): string {
  if (/call stack/i.test(message)) return 'It is nested too deeply to read.';
  if (/multiple documents/i.test(message)) return 'It holds more than one YAML document (`---`): a policy is one.';
  if (/keys must be unique/i.test(message)) return 'A key is written twice here: write each key once.';
  return message;
}

function parseText(text: string): ParsedPolicy {
  const { LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (start: number, end: number, message: string): PolicyProblem => {
    const from = lineCounter.linePos(start);
    const to = lineCounter.linePos(Math.max(start, end));
    return { message, line: from.line - 1, column: from.col - 1, endLine: to.line - 1, endColumn: to.col - 1 };
  };
  const syntax = document.errors.map((error) => {
    const message = error.message.split('\n')[0]!;
    return at(error.pos[0], error.pos[1], syntaxWords(message));
  });
  if (syntax.length) return { problems: syntax };
  const data: unknown = document.toJS({ maxAliasCount: MAX_ALIASES }) ?? {};
  if (typeof data !== 'object' || Array.isArray(data))
    return {
      problems: [wholeFileProblem('It is not a YAML mapping of settings (tools:, approvals:, budget:, sandbox:…).')],
    };
  const parsed = agentPolicySchema.safeParse(data);
  if (parsed.success) return { policy: parsed.data, problems: [] };
  return {
    problems: parsed.error.issues.map((issue) => {
      // Unknown keys are reported on the key itself; other problems on the value at fault.
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
      const path = keys.length ? [...issue.path, keys[0]!] : issue.path;
      const range = rangeOf(document, path as Array<string | number>, keys.length > 0);
      const where = path.length ? `${path.join('.')}: ` : '';
      return at(range[0], range[1], `${where}${issue.message}`);
    }),
  };
}

/** The source range of the node at `path` (its key for unknown keys), or of the nearest parent that exists. */
function rangeOf(
  document: ReturnType<typeof parseDocument>,
  path: Array<string | number>,
  key: boolean,
): [number, number] {
  if (!yaml().isDocument(document)) return [0, 0];
  for (let length = path.length; length >= 0; length--) {
    const parentPath = path.slice(0, length);
    if (key && length === path.length) {
      const parent = document.getIn(path.slice(0, -1), true) as
        { items?: Array<{ key?: { value?: unknown; range?: number[] } }> } | undefined;
      const pair = parent?.items?.find((item) => item.key?.value === path.at(-1));
      if (pair?.key?.range) return [pair.key.range[0]!, pair.key.range[1]!];
      continue;
    }
    const node = (parentPath.length ? document.getIn(parentPath, true) : document.contents) as
      { range?: number[] } | undefined;
    if (node?.range) return [node.range[0]!, node.range[1]!];
  }
  return [0, 0];
}

/** The JSON Schema editors use to complete and check the file. */
export function agentPolicyJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    ...(z.toJSONSchema(agentPolicySchema, { target: 'draft-7' }) as Record<string, unknown>),
    $id: 'https://openagent.dev/schemas/agent-policy.schema.json',
  };
}
