import type { DecodedText, TextContent } from './workspace/text-file';
import type { RecordingStore } from './replay/recording';
import type { ImagePart } from './llm/llm-client';

/** Recorded runs (replay): the port the store implements, and how it writes their content. */
export type { ContentRef, RecordedStep, RecordingStore, RunManifest, RunRecording } from './replay/recording';
export { canonicalJson, isContentRef } from './replay/content-hash';

/**
 * The interfaces hosts implement for the core. The core never imports 'vscode': the extension
 * (src/host) and the CLI/tests (src/node) each provide these.
 */

export interface Clock {
  now(): number;
}

/** Where API keys come from: the editor's SecretStorage, or the environment in the CLI. */
export interface SecretSource {
  getApiKey(provider: string): Promise<string | undefined>;
}

/** The result of a command run through a host's shell. */
export interface ShellResult {
  output: string;
  /** Undefined when the shell could not report it. */
  exitCode: number | undefined;
  timedOut: boolean;
  /** Which mechanism ran it, so the agent can tell the user. */
  via: 'shell-integration' | 'child-process';
}

export interface ShellRunOptions {
  cwd?: string;
  /** The user approved running this command outside the sandbox (it needed out). */
  unconfined?: boolean;
  timeoutMs: number;
  /** Output beyond this many characters is cut, keeping the end. */
  maxOutputChars: number;
  signal?: AbortSignal;
}

/** Whether agent commands run confined now, and why not (SPEC 4.4). Read at each call. */
export interface SandboxStatus {
  /** The mode in force: the strictest of the user's setting and the policies. */
  mode: 'auto' | 'required' | 'off';
  /** Commands run in the sandbox. */
  confined: boolean;
  /** Confined commands may reach the network (granted by the user's policy). */
  network: boolean;
  /** What confines them ("bubblewrap 0.8.0"), or in words why nothing does. */
  detail: string;
  /** `required` with no sandbox: every command is refused with this. */
  refusal?: string;
}

export interface CommandSandbox {
  status(): SandboxStatus;
}

/** Runs shell commands where the user can see them (host: the integrated terminal). */
export interface Shell {
  run(command: string, options: ShellRunOptions): Promise<ShellResult>;
}

/** Where full transcripts go before compaction (JSONL, one message a line). */
export interface TranscriptSink {
  /** Saves the messages and returns where they are (a path or URI to show the user). */
  save(conversationId: string, messages: readonly unknown[]): Promise<string>;
}

/** A conversation as the store keeps it. */
export interface StoredConversation {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  /** Per-conversation settings (model, approval, plan mode, tracing…): never secrets. */
  settings: Record<string, unknown>;
  /** Set on a fork (SPEC 5b): where it was copied from. Kept by every later save of the conversation. */
  forkedFrom?: ForkOrigin;
}

/** Where a fork came from: its parent conversation and the last message (seq) the two share. */
export interface ForkOrigin {
  conversationId: string;
  /** The fork holds the parent's messages with seq <= this (and its own after them). */
  seq: number;
  /** 'fork': "Fork from here"; 'rewind': the later part an edited prompt left behind. */
  reason: 'fork' | 'rewind';
}

/** A copy of part of a conversation as a new one (ConversationStore.forkConversation). */
export interface ForkCopy {
  /** The new conversation; its `forkedFrom` names the parent. */
  conversation: StoredConversation & { forkedFrom: ForkOrigin };
  /** The parent's messages with seq <= this are copied (same seq, the new conversation's ids). */
  copyUpTo: number;
  /** Messages of the new conversation written with the copy, after it (a run end, a marker). */
  add: StoredMessage[];
}

/** One message (or event) of a conversation; written again with the same id to update it. */
export interface StoredMessage {
  id: string;
  conversationId: string;
  /** Order within the conversation. */
  seq: number;
  role: 'user' | 'assistant' | 'event';
  content: unknown;
  createdAt: number;
}

/** Who a usage or audit record is from, for the team database (SPEC 5a). */
export interface TeamStamp {
  member: string;
  repository?: string;
}

export interface UsageRecord {
  id: string;
  conversationId: string;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
  time: number;
  /** The team budget reservation this call took. */
  reservationId?: string;
  /** Set when a team is configured: the record is also kept for the team database until it has it. */
  team?: TeamStamp;
}

export interface AuditRecord {
  id: string;
  conversationId: string;
  time: number;
  kind: 'model_call' | 'tool_call' | 'budget' | 'policy';
  data: Record<string, unknown>;
  /** Set when a team is configured: the record is also kept for the team database until it has it. */
  team?: TeamStamp;
}

/** A record the team database has not received yet; `key` says which, for deliveredToTeam. */
export type TeamOutboxItem =
  | { key: string; kind: 'usage'; record: UsageRecord & { team: TeamStamp } }
  | { key: string; kind: 'audit'; record: AuditRecord & { team: TeamStamp } };

export interface UsageQuery {
  conversationId?: string;
  model?: string;
  /** YYYY-MM-DD, UTC. */
  day?: string;
  /** YYYY-MM, UTC. */
  month?: string;
}

export interface UsageTotals {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
}

/** Where conversations, usage and the audit trail live (host: one SQLite store in global storage). */
export interface ConversationStore {
  saveConversation(conversation: StoredConversation): Promise<void>;
  getConversation(id: string): Promise<StoredConversation | undefined>;
  /** Newest first. */
  listConversations(options?: { limit?: number; offset?: number; search?: string }): Promise<StoredConversation[]>;
  deleteConversation(id: string): Promise<void>;
  putMessage(message: StoredMessage): Promise<void>;
  listMessages(conversationId: string): Promise<StoredMessage[]>;
  recordUsage(record: UsageRecord): Promise<void>;
  usageTotals(query?: UsageQuery): Promise<UsageTotals>;
  recordAudit(record: AuditRecord): Promise<void>;
  listAudit(query?: { conversationId?: string; kind?: AuditRecord['kind'] }): Promise<AuditRecord[]>;
  /** Records stamped for the team that it has not received yet, oldest first (the outbox, SPEC 5a). */
  teamOutbox(limit: number): Promise<TeamOutboxItem[]>;
  /** The team database has these (TeamOutboxItem keys): they leave the outbox. */
  deliveredToTeam(keys: string[]): Promise<void>;
  /**
   * The team database refused these for what they hold (not for being away): they stay here,
   * marked, and are no longer sent, so one bad record never holds back the ones after it.
   */
  refusedByTeam(keys: string[], reason: string): Promise<void>;
  /** How many outbox records the team database refused, and the last reason. */
  teamRefused(): Promise<{ count: number; reason?: string }>;
  /**
   * Copies a conversation's messages up to `copyUpTo` into a new conversation, in one write (a
   * fork of 1,000 messages costs what one message does). Optional: without it the library copies
   * message by message. Usage and audit records stay with the parent (its money, its trail).
   */
  forkConversation?(copy: ForkCopy): Promise<void>;
  /**
   * Takes a conversation back: its messages with seq >= `fromSeq` are removed and `marker` (a
   * message numbered after every one it had) is written, in one write. Used only after the
   * removed part was saved as a fork.
   */
  rewindConversation?(conversationId: string, fromSeq: number, marker: StoredMessage): Promise<void>;
  /** The conversations forked from this one (oldest first). */
  listForks?(conversationId: string): Promise<StoredConversation[]>;
  /** Recorded runs (replay and compare); absent: runs are not recorded in this store. */
  readonly recordings?: RecordingStore;
  /** Images the conversations use, kept once by sha256 (issue 36); absent: images are not kept. */
  readonly images?: ImageStore;
  close(): Promise<void>;
}

/** A place in a workspace file: 1-based line and column, path absolute. */
export interface CodeLocation {
  path: string;
  line: number;
  column: number;
}

export interface TextSearchQuery {
  /** A regular expression (Rust regex syntax), or literal text when `literal` is set. */
  pattern: string;
  literal: boolean;
  caseSensitive: boolean;
  /** Absolute folder or file to search in. */
  within: string;
  /** Only files matching this glob (e.g. "*.ts", "src/**"). */
  glob?: string;
  maxMatches: number;
  /**
   * Files (absolute) whose matches are dropped as if they had none, before they count towards
   * `maxMatches` or `truncated`: secret files (secret-reads.ts).
   */
  skip?: (absolute: string) => boolean | Promise<boolean>;
  signal?: AbortSignal;
}

export interface TextSearchResult {
  matches: Array<CodeLocation & { text: string }>;
  /** More matches exist than were returned. */
  truncated: boolean;
}

/** Text search over the workspace (ripgrep in both hosts; .gitignore respected). */
export interface TextSearch {
  search(query: TextSearchQuery): Promise<TextSearchResult>;
}

export interface Diagnostic extends CodeLocation {
  severity: 'error' | 'warning' | 'info' | 'hint';
  message: string;
  source?: string;
}

export interface SymbolMatch extends CodeLocation {
  name: string;
  kind: string;
  container?: string;
}

/** Real code navigation: the editor's language features (VS Code only). */
export interface CodeNavigation {
  /** Problems of one file (absolute path), or of every file the editor knows about. */
  diagnostics(absolute?: string): Promise<Diagnostic[]>;
  /** Symbols whose name matches `query` across the workspace. */
  findSymbols(query: string): Promise<SymbolMatch[]>;
  references(at: CodeLocation): Promise<CodeLocation[]>;
  definitions(at: CodeLocation): Promise<CodeLocation[]>;
}

/** The workspace's files as tools see them (host: VS Code's file system and WorkspaceEdit). */
/** What a write did beyond writing, when the adapter knows. */
export interface WrittenFile {
  /** Other hard links the replaced file had; they kept the old content (the link was broken). */
  otherLinks: number;
}

/**
 * Image files for read_file (issue 36): the file prepared for a model (scaled, re-encoded within
 * IMAGE_LIMITS; a bad one throws an Error whose message says why), and whether the model now
 * answering sees images at all (otherwise read_file says so in text).
 */
export interface ImageFiles {
  read(absolute: string, name: string): Promise<ImagePart>;
  /** The model in use and whether it takes images (model-info and the setting decide). */
  modelSeesImages(): { model: string; sees: boolean };
}

/**
 * Images kept once, by the sha256 of their encoded bytes (issue 36): a conversation's events name
 * an image by its sha256 (`user_message.images`, a tool result's images), never carry its bytes;
 * the chat, the developer panel, a reopened conversation and the export read them back from here.
 */
/** What an ImageStore implementation checks images against (the store imports only the ports). */
export { IMAGE_LIMITS, IMAGE_MEDIA_TYPES, queuedImagesHolder } from './images/image-limits';
export type { ImagePart };

export interface ImageStore {
  /**
   * Keeps the image (a second put of the same sha256 keeps the first: the bytes are the same).
   * `conversationId`: the conversation that uses it, so deleting the last such conversation frees
   * it. Refuses (throws) bytes whose sha256 is not `image.sha256`, or over IMAGE_LIMITS.maxBytes.
   */
  put(image: ImagePart, conversationId?: string): Promise<void>;
  /** The image, or undefined when this store never had it. */
  get(sha256: string): Promise<ImagePart | undefined>;
  /**
   * `holder` (a conversation, or what holds queued messages: queuedImagesHolder) stops using
   * every image but those in `keep`; `put(image, holder)` starts. An image nothing uses any more
   * is freed with the next conversation deleted. A store without uses (in memory) has none.
   */
  release?(holder: string, keep: readonly string[]): Promise<void>;
}

export interface WorkspaceFiles {
  /** The workspace folder (absolute). */
  readonly root: string;
  /** Real path of an existing file or folder; undefined if it does not exist. */
  realpath(absolute: string): Promise<string | undefined>;
  /** The target of a symbolic link as written in it (a dangling one too); undefined if it is no link. */
  readlink(absolute: string): Promise<string | undefined>;
  stat(absolute: string): Promise<{ type: 'file' | 'directory'; size: number } | undefined>;
  /**
   * The secret file (workspace-relative) that this file is another hard link of, if any: its
   * name and real path may say nothing (`notes.txt` linked to `.env`), its bytes are the secret.
   * Required, so that no wrapper of a workspace can drop it without the compiler saying so.
   */
  linkedSecret(absolute: string): Promise<string | undefined>;
  /** Reads text with its encoding, BOM and line endings; throws BinaryFileError for binary files. */
  readText(absolute: string): Promise<DecodedText>;
  /**
   * Writes text back in `format` (a new file: UTF-8, no BOM, \n). VS Code: a WorkspaceEdit, so it
   * can be undone. A file with other hard links is replaced by a new file, never written into:
   * the other names (outside the workspace, or a protected file) keep their content. The text may come in pieces, written one after the other (an edit of a big file
   * hands over the untouched parts as they are rather than one copy of the whole).
   */
  writeText(absolute: string, text: TextContent, format?: Omit<DecodedText, 'text'>): Promise<WrittenFile | void>;
  /**
   * Optional, for adapters whose disk is the truth (the Node one; VS Code's reads open documents
   * instead): a file's bytes as they are, and a write of new UTF-8 content without a byte-order
   * mark, given as byte pieces written one after the other. edit_file uses them for big files.
   */
  readBytes?(absolute: string): Promise<Uint8Array>;
  writeUtf8Bytes?(absolute: string, pieces: readonly Uint8Array[]): Promise<WrittenFile | void>;
  /** Deletes a file (reverting a turn that created it). VS Code: a WorkspaceEdit, so it can be undone. */
  delete(absolute: string): Promise<void>;
  /**
   * Paths relative to the workspace root, ignored files left out. With `pattern` (a glob over
   * paths relative to the folder): only the files below it that match.
   */
  list(
    absoluteDirectory: string,
    options: { recursive: boolean; limit: number; pattern?: string },
  ): Promise<{ entries: string[]; truncated: boolean }>;
}

/** A process started by a ProcessRunner; listeners may be added at any time (late ones still hear the exit). */
export interface RunningProcess {
  /** Output as it arrives, stdout and stderr merged, decoded as UTF-8. */
  onOutput(listener: (chunk: string) => void): void;
  /** Called once, when the process has ended; undefined when a signal ended it or it could not start. */
  onExit(listener: (exitCode: number | undefined) => void): void;
  /** Stops the process and everything it started (the whole tree). Idempotent. */
  kill(): void;
}

/** Starts commands that run on their own beside the conversation (background jobs). */
export interface ProcessRunner {
  start(command: string, options: { cwd?: string; env?: Record<string, string>; unconfined?: boolean }): RunningProcess;
}

/**
 * Plain text files the agent's knowledge lives in — memory, project rules, skills — by absolute
 * path, inside the workspace or not (global memory, bundled skills). Node: the file system.
 */
export interface KnowledgeFiles {
  /** The file's text; undefined when it does not exist or is a folder. */
  read(absolute: string): Promise<string | undefined>;
  /** A folder's entries, sorted by name; [] when it does not exist. */
  list(absoluteDirectory: string): Promise<Array<{ name: string; directory: boolean }>>;
  /** Real path of an existing file or folder (symlinks resolved); undefined if it does not exist. */
  realpath(absolute: string): Promise<string | undefined>;
  /** Appends text, creating the file and its folders when missing. */
  append(absolute: string, text: string): Promise<void>;
  /** Creates a new file (and its folders); refuses to overwrite one that exists. */
  create(absolute: string, text: string): Promise<void>;
}

/** One task of a task board (SPEC 2.9), as stored. */
export interface StoredTask {
  id: string;
  subject: string;
  description: string;
  /** Present-tense form shown while it is in progress, e.g. "Running the tests". */
  activeForm?: string;
  status: 'pending' | 'in_progress' | 'completed';
  /** The agent working on it (lead, a teammate's name); unset while unclaimed. */
  owner?: string;
  /** Tasks that must be completed before this one can start. */
  blockedBy: string[];
  /** Tasks waiting for this one (the other side of their blockedBy). */
  blocks: string[];
  createdAt: number;
  updatedAt: number;
}

export interface TaskBoardData {
  /** The number the next task gets. */
  nextId: number;
  tasks: StoredTask[];
}

/**
 * Where task boards persist (outside the conversation history, so compaction and restarts do
 * not lose them). `update` is atomic against every other writer, in this process or another.
 */
export interface TaskBoardStorage {
  read(boardId: string): Promise<TaskBoardData>;
  /** Reads the board, applies `change` (which may throw to abort) and saves what it returns. */
  update<Result>(
    boardId: string,
    change: (board: TaskBoardData) => { board: TaskBoardData; result: Result },
  ): Promise<Result>;
}

/** A message between the agents of a team (SPEC 2.8). */
export interface TeamMessage {
  from: string;
  to: string;
  text: string;
  time: number;
  /** Set on protocol messages: the request they ask or answer. */
  requestId?: string;
  kind?: 'message' | 'shutdown_request' | 'plan_review' | 'response';
}

/** A protocol request (graceful shutdown, plan approval) and its answer. */
export interface ProtocolRequest {
  id: string;
  kind: 'shutdown' | 'plan';
  from: string;
  to: string;
  text: string;
  status: 'pending' | 'approved' | 'rejected';
  response?: string;
}

export interface TeamData {
  members: Array<{ name: string; role: string }>;
  /** Unread messages by recipient. */
  inboxes: Record<string, TeamMessage[]>;
  requests: ProtocolRequest[];
  nextRequest: number;
}

/** Where a team's members, inboxes and protocol requests persist; `update` is atomic. */
export interface TeamStorage {
  read(teamId: string): Promise<TeamData>;
  update<Result>(teamId: string, change: (team: TeamData) => { team: TeamData; result: Result }): Promise<Result>;
}
