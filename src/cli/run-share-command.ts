/**
 * `openagent export-run <conversation> [-o FILE]` writes one recorded run as a file to share
 * (run-export.ts: the recording, exactly the content it reaches, the messages; redacted again);
 * `openagent import-run FILE` checks such a file completely (run-import.ts) and only then stores
 * it as a new conversation marked imported, which `openagent replay` and `compare` take like any
 * other. The file is read only when it is a regular file no larger than an export may be.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseSubcommand } from './subcommand-args';
import { HeldSecrets } from '../core/llm/held-secrets';
import type { ConversationStore } from '../core/ports';
import { RecordingProblem } from '../core/replay/loaded-recording';
import { buildRunExport, runExportText } from '../core/replay/run-export';
import {
  tooDeepAt,
  checkRunExport,
  IMPORT_LIMITS,
  importRun,
  type ImportLimits,
  type ImportStore,
} from '../core/replay/run-import';
import { visibleText } from '../core/text/visible-text';
import { StoreOpener } from '../kit/store-opener';
import { readRegularFile, UnusableFileError } from '../store/regular-file';
import { packageVersion } from './cli-telemetry';
import { resolveConversationId, sqlWasmPath } from './replay-store';

export const SHARE_USAGE = `Usage:
  openagent export-run <conversation> [-o FILE] [--no-messages] [--store DIR]
      writes the conversation's recorded run to one file (standard output without -o): the
      recording, the content it refers to, and its messages, secrets redacted.
  openagent import-run FILE [--store DIR]
      checks an exported run and stores it as a new conversation marked imported; replay it
      with "openagent replay <id>" (recorded tools only: nothing in it runs).`;

export interface ShareStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export interface ShareCommandDeps {
  openStore?: (directory: string) => Promise<ConversationStore>;
  now?: () => number;
  newId?: () => string;
  /** Smaller limits for tests. */
  limits?: ImportLimits;
}

/** Runs `openagent export-run …` or `openagent import-run …` (`argv` after the command's name). */
export async function runShareCommand(
  command: 'export-run' | 'import-run',
  argv: string[],
  env: NodeJS.ProcessEnv,
  streams: ShareStreams,
  deps: ShareCommandDeps = {},
): Promise<number> {
  const fail = (message: string, code = 1) => {
    streams.stderr.write(`openagent ${command}: ${shown(message)}\n`);
    return code;
  };
  const parsed = parseSubcommand(
    argv,
    {
      output: { type: 'string', short: 'o' },
      'no-messages': { type: 'boolean' },
      store: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    SHARE_USAGE,
  );
  if (parsed.kind === 'problem') return fail(parsed.message, 2);
  if (parsed.kind === 'help') {
    streams.stdout.write(`${SHARE_USAGE}\n`);
    return 0;
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1)
    return fail(`${command === 'export-run' ? 'name one conversation' : 'name one file'}.\n\n${SHARE_USAGE}`, 2);
  if (command === 'import-run' && (values.output !== undefined || values['no-messages']))
    return fail('-o and --no-messages are for export-run.', 2);
  const directory = path.resolve(
    values.store ?? (env.OPENAGENT_STORE || path.join(os.homedir(), '.openagent', 'store')),
  );
  const heldSecrets = new HeldSecrets();
  heldSecrets.addEnvironment(env);
  const stores = new Stores(directory, deps.openStore, heldSecrets);
  const now = deps.now ?? Date.now;
  try {
    if (command === 'export-run') {
      const store = await stores.open(false);
      const id = await resolveConversationId(store, positionals[0]!);
      const conversation = await store.getConversation(id);
      const recordings = (store as ImportStore).recordings;
      if (!conversation || !recordings) throw new RecordingProblem(`There is no conversation ${id} in ${directory}.`);
      const { exported, redacted } = await buildRunExport(
        {
          recordings,
          conversation,
          ...(values['no-messages'] ? {} : { messages: await store.listMessages(id) }),
        },
        { product: packageVersion() ?? 'unknown', now: now(), knownSecrets: heldSecrets.matcher() },
      );
      const text = runExportText(exported);
      const bytes = Buffer.byteLength(text);
      const limit = (deps.limits ?? IMPORT_LIMITS).maxFileBytes;
      if (bytes > limit)
        throw new RecordingProblem(
          `The run's export would be ${(bytes / 1024 / 1024).toFixed(1)} MB, more than an import takes (${limit / 1024 / 1024} MB); it was not written.`,
        );
      // A run with a tool input nested deeper than an import takes is not written for nothing.
      if (tooDeepAt(Buffer.from(text), (deps.limits ?? IMPORT_LIMITS).maxDepth) !== undefined)
        throw new RecordingProblem(
          `The run holds a value nested more than ${(deps.limits ?? IMPORT_LIMITS).maxDepth} levels deep, which an import refuses; it was not written.`,
        );
      if (values.output === undefined) streams.stdout.write(text);
      else writeWhole(values.output, text);
      const where = values.output === undefined ? 'standard output' : values.output;
      streams.stderr.write(
        `Exported ${shown(id)} (${exported.recording.steps.length} steps, ${exported.content.length} pieces of content, ${exported.messages?.length ?? 0} messages) to ${shown(where)}.\n`,
      );
      if (redacted > 0)
        streams.stderr.write(`Redacted ${redacted} piece${redacted === 1 ? '' : 's'} of content that held secrets.\n`);
      return 0;
    }
    const file = positionals[0]!;
    // Everything is checked before the store is opened: a refused file changes nothing.
    const checked = await checkRunExport(await readExportFile(file, deps.limits), {
      limits: deps.limits,
      knownSecrets: heldSecrets.matcher(),
    });
    const store = await stores.open(true);
    const id = (deps.newId ?? randomUUID)();
    const conversation = await importRun(store, checked, {
      id,
      now: now(),
      file: path.basename(file),
      knownSecrets: heldSecrets.matcher(),
    });
    streams.stdout.write(
      `Imported "${shown(conversation.title)}" as conversation ${id} (${checked.recording.steps.length} steps, ${checked.messages?.length ?? 0} messages).\n` +
        `Replay it with: openagent replay ${id}\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof RecordingProblem || error instanceof UnusableFileError) return fail(error.message);
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return fail(error instanceof Error ? error.message : String(error));
    throw error;
  } finally {
    await stores.close();
  }
}

/** The bytes of an export file: a regular file (not a link, pipe or device), read up to the cap. */
export async function readExportFile(file: string, limits: ImportLimits = IMPORT_LIMITS): Promise<Buffer> {
  try {
    return await readRegularFile(file, limits.maxFileBytes);
  } catch (error) {
    if (error instanceof UnusableFileError)
      throw new RecordingProblem(`${error.file} ${error.reason}: an export is read only from a regular file.`);
    throw new RecordingProblem(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
  }
}

/**
 * Writes the file whole or not at all: into a new file beside it, then renamed over it (a
 * link or pipe in its place is refused, never written through).
 */
function writeWhole(file: string, text: string): void {
  const existing = fs.lstatSync(file, { throwIfNoEntry: false });
  if (existing && !existing.isFile())
    throw new RecordingProblem(`${file} is there and is not a regular file: not written.`);
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(temporary, text, { flag: 'wx', mode: 0o600 });
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw new RecordingProblem(`Cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
  }
}

/** Text from a file or a store with every control character shown as an escape (it cannot move the cursor). */
function shown(text: string): string {
  return visibleText(text);
}

class Stores {
  private opener: StoreOpener | undefined;
  private store: Promise<ConversationStore> | undefined;

  constructor(
    private readonly directory: string,
    private readonly openStore: ((directory: string) => Promise<ConversationStore>) | undefined,
    private readonly heldSecrets: HeldSecrets,
  ) {}

  open(create: boolean): Promise<ConversationStore> {
    if (this.store) return this.store;
    if (this.openStore) return (this.store = this.openStore(this.directory));
    if (!create && !fs.existsSync(this.directory))
      return Promise.reject(new RecordingProblem(`There is no store in ${this.directory}.`));
    this.opener = new StoreOpener({
      directory: this.directory,
      wasmPath: sqlWasmPath(),
      secrets: this.heldSecrets.matcher,
      tell: () => undefined,
    });
    return (this.store = this.opener.open());
  }

  async close(): Promise<void> {
    if (this.opener) await this.opener.close();
    else if (this.store) await (await this.store.catch(() => undefined))?.close();
  }
}
