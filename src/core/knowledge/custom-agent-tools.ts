/**
 * A custom agent's `tools:` list (VS Code's .agent.md, Claude Code's .claude/agents/*.md) in
 * our tool names, through one table: each name another agent uses maps to the tools of ours
 * that do the same work. A name no row knows is reported, never silently dropped; a name whose
 * work we have no tool for (the web) is reported as such. MCP tools are named by server: VS
 * Code's `server/*` or `server/tool`, Claude Code's `mcp__server__tool` (our own naming too).
 */
import { mcpToolName } from '../mcp/mcp-tool';

/**
 * The table: a tool name of another agent (matched case-insensitively, VS Code's tool-set
 * prefix `read/`, `edit/` … allowed) → our tools. An empty list: we have no such tool.
 */
export const TOOL_NAME_TABLE: Readonly<Record<string, readonly string[]>> = {
  // VS Code tool sets (the 2025 aliases) and tools.
  read: ['read_file', 'list_files', 'glob', 'get_diagnostics'],
  readfile: ['read_file'],
  listdirectory: ['list_files'],
  problems: ['get_diagnostics'],
  edit: ['edit_file', 'write_file'],
  editfiles: ['edit_file', 'write_file'],
  createfile: ['write_file'],
  createdirectory: ['write_file'],
  search: ['search_files', 'glob', 'list_files', 'find_symbol'],
  codebase: ['search_files', 'find_symbol'],
  filesearch: ['glob', 'list_files'],
  textsearch: ['search_files'],
  usages: ['find_references', 'go_to_definition', 'find_symbol'],
  execute: ['bash', 'background_run', 'check_background'],
  runcommands: ['bash', 'background_run', 'check_background'],
  runinterminal: ['bash'],
  terminallastcommand: ['check_background'],
  getterminaloutput: ['check_background'],
  runtasks: ['bash'],
  todo: ['task_create', 'task_get', 'task_update', 'task_list'],
  todos: ['task_create', 'task_get', 'task_update', 'task_list'],
  agent: ['task'],
  runsubagent: ['task'],
  web: [],
  fetch: [],
  githubrepo: [],
  // Claude Code's tools.
  bash: ['bash'],
  bashoutput: ['check_background'],
  glob: ['glob'],
  grep: ['search_files'],
  ls: ['list_files'],
  multiedit: ['edit_file'],
  write: ['write_file'],
  task: ['task'],
  todowrite: ['task_create', 'task_get', 'task_update', 'task_list'],
  todoread: ['task_get', 'task_list'],
  webfetch: [],
  websearch: [],
  notebookedit: [],
  notebookread: [],
};

/**
 * Tools every preset keeps, whatever its list says: they act on nothing outside the
 * conversation (thinking, compacting the history, presenting a plan in plan mode, reading the
 * memory and skills, a team's messages while the team switch is on). Taking them away would
 * break plan mode or a team, not make the agent safer.
 */
export const ALWAYS_OFFERED: ReadonlySet<string> = new Set([
  'think',
  'compact',
  'present_plan',
  'memory_read',
  'list_skills',
  'read_skill',
  'spawn_teammate',
  'shutdown_request',
  'plan_review',
  'list_teammates',
  'send_message',
  'read_inbox',
  'broadcast',
  'check_protocol',
]);

/** Which of our tools a preset offers: named ones, and MCP tools by name or whole server. */
export class ToolAllowance {
  constructor(
    readonly names: ReadonlySet<string>,
    /** `mcp__<server>__`: every tool of that server. */
    readonly prefixes: readonly string[],
  ) {}

  allows(toolName: string): boolean {
    return (
      ALWAYS_OFFERED.has(toolName) ||
      this.names.has(toolName) ||
      this.prefixes.some((prefix) => toolName.startsWith(prefix))
    );
  }

  /** For the picker and the problems: our tools, sorted, with MCP servers as `mcp__server__*`. */
  describe(): string {
    const listed = [...[...this.names].sort(), ...this.prefixes.map((prefix) => `${prefix}*`)];
    return listed.length ? listed.join(', ') : 'no tools';
  }
}

/** Names read from one `tools:` field; more is someone's mistake or an attack. */
export const MAX_TOOL_NAMES = 200;
/** A tool name longer than this is no tool name. */
const MAX_TOOL_NAME_CHARS = 200;

export interface MappedTools {
  allowance: ToolAllowance;
  /** Each name not mapped, with why. */
  problems: string[];
}

/**
 * The `tools:` field as our tools. `listed`: the names as written (the caller has checked they
 * are strings). An empty list offers only the ALWAYS_OFFERED tools, as VS Code offers none.
 */
export function mapToolNames(listed: readonly string[]): MappedTools {
  const names = new Set<string>();
  const prefixes: string[] = [];
  const problems: string[] = [];
  if (listed.length > MAX_TOOL_NAMES)
    problems.push(`${listed.length} tool names; the first ${MAX_TOOL_NAMES} are read, the rest left out`);
  for (const raw of listed.slice(0, MAX_TOOL_NAMES)) {
    const written = raw.trim();
    if (!written) continue;
    const shown = printable(written);
    if (written.length > MAX_TOOL_NAME_CHARS || hasHiddenCharacters(written)) {
      problems.push(`the tool name "${shown}" is not a tool name; it is left out`);
      continue;
    }
    const mcp = mcpTools(written);
    if (mcp) {
      if ('prefix' in mcp) prefixes.push(mcp.prefix);
      else names.add(mcp.name);
      continue;
    }
    const mapped = lookUp(written);
    if (mapped === undefined) problems.push(`the tool "${shown}" is not one OpenAgent knows; it is left out`);
    else if (mapped.length === 0) problems.push(`OpenAgent has no tool for "${shown}"; it is left out`);
    else mapped.forEach((name) => names.add(name));
  }
  return { allowance: new ToolAllowance(names, [...new Set(prefixes)]), problems };
}

/** Our tools for one name: exact in the table, or after a VS Code tool-set prefix (`edit/editFiles`). */
function lookUp(written: string): readonly string[] | undefined {
  const key = written.toLowerCase();
  if (Object.hasOwn(TOOL_NAME_TABLE, key)) return TOOL_NAME_TABLE[key];
  const slash = key.lastIndexOf('/');
  if (slash <= 0) return undefined;
  // `edit/*`: the whole set; `edit/editFiles`: the tool.
  const part = key.slice(slash + 1) === '*' ? key.slice(0, slash) : key.slice(slash + 1);
  return Object.hasOwn(TOOL_NAME_TABLE, part) ? TOOL_NAME_TABLE[part] : undefined;
}

/**
 * An MCP name: Claude Code's and ours `mcp__server__tool` (or `mcp__server` for all its tools),
 * VS Code's `server/*` or `server/tool` where the server is not one of VS Code's tool sets.
 */
function mcpTools(written: string): { prefix: string } | { name: string } | undefined {
  const claude = /^mcp__([^_].*?)(?:__(.+))?$/.exec(written);
  if (claude) {
    const server = claude[1]!;
    return claude[2] === undefined ? { prefix: serverPrefix(server) } : { name: mcpToolName(server, claude[2]) };
  }
  const slash = written.indexOf('/');
  if (slash <= 0 || written.indexOf('/', slash + 1) !== -1) return undefined;
  const server = written.slice(0, slash);
  const tool = written.slice(slash + 1);
  // `read/readFile`, `edit/*`: a VS Code tool set, not a server.
  if (Object.hasOwn(TOOL_NAME_TABLE, server.toLowerCase())) return undefined;
  if (tool === '*') return { prefix: serverPrefix(server) };
  return tool ? { name: mcpToolName(server, tool) } : undefined;
}

function serverPrefix(server: string): string {
  return `mcp__${server.replace(/[^a-zA-Z0-9_-]/g, '_')}__`;
}

/**
 * Control characters, invisible ones and bidirectional overrides: what can make a name look
 * like another, or rewrite a terminal line, when shown.
 */
// eslint-disable-next-line no-control-regex
const HIDDEN_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;

export function hasHiddenCharacters(text: string): boolean {
  return new RegExp(HIDDEN_CHARACTERS.source).test(text);
}

/** `text` with each run of hidden characters replaced by `by`. */
export function withoutHiddenCharacters(text: string, by: string): string {
  return text.replace(new RegExp(`${HIDDEN_CHARACTERS.source}+`, 'g'), by);
}

/** A name as it can be shown: hidden characters made visible, long ones cut. */
export function printable(text: string): string {
  const shown = text.replace(HIDDEN_CHARACTERS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return shown.length > 80 ? `${shown.slice(0, 80)}…` : shown;
}
