/**
 * Opens the conversation store once, on first use (activation and CLI start stay cheap), and
 * tells the user what they need to know about it — a damaged store kept aside and recovered, a
 * store that could not be read at all, a write that failed — each failure once. Both
 * composition roots (the extension and the CLI) use it; only how they tell differs.
 */
import type { ConversationStore } from '../core/ports';
import { redactValue, type KnownSecrets } from '../core/llm/redact';
import { lazyModule } from '../core/lazy-module';
import type * as SqlJsStoreModule from '../store/sqljs-store';

/** sql.js and the store over it, loaded when the store is first opened (see lazy-module.ts). */
const sqlJsStore = lazyModule(() => require('../store/sqljs-store') as typeof SqlJsStoreModule);

export interface StoreOpenerOptions {
  /** The store folder. */
  directory: string;
  /** Where sql-wasm.wasm is. */
  wasmPath: string;
  /**
   * Every secret the product holds (HeldSecrets.list): removed from every entry before it is
   * written, whoever wrote it. Without it only key shapes and secret assignments are found.
   */
  secrets?: () => KnownSecrets;
  /** Tells the user something about the store: a warning (kept what it could not read) or an error. */
  tell(severity: 'warning' | 'error', message: string): void;
}

export class StoreOpener {
  private opening: Promise<ConversationStore> | undefined;
  private readonly told = new Set<string>();

  constructor(private readonly options: StoreOpenerOptions) {}

  /** The store; rejects when it cannot be opened (the next call tries again: a lock may be free by then). */
  readonly open = (): Promise<ConversationStore> =>
    (this.opening ??= Promise.resolve()
      .then(() =>
        sqlJsStore().SqlJsStore.open({
          directory: this.options.directory,
          wasmPath: this.options.wasmPath,
          redact: (value) => redactValue(value, this.options.secrets?.() ?? []),
          // Files set aside while the store is in use (replaced by a pipe, a folder…).
          onRecovered: (recovery) => this.options.tell('warning', recovery.message),
        }),
      )
      .then(({ store, quarantined, recovered }) => {
        if (recovered) this.options.tell('warning', recovered.message);
        if (quarantined)
          this.options.tell(
            'warning',
            `Could not read the conversation store and started a new one. ${quarantined.error.message} The old file is kept at ${quarantined.path}.`,
          );
        return store;
      })
      .catch((error: unknown) => {
        this.opening = undefined;
        throw error;
      }));

  /** The store, or undefined when it cannot be opened (the failure told once). */
  readonly openOrReport = (): Promise<ConversationStore | undefined> =>
    this.open().catch((error: unknown) => {
      this.reportError(error);
      return undefined;
    });

  /** A store failure (opening or writing), told once per distinct message; the work goes on without saving. */
  readonly reportError = (error: unknown): void => {
    const message = error instanceof Error ? error.message : String(error);
    if (this.told.has(message)) return;
    this.told.add(message);
    this.options.tell('error', `Could not save the conversation in ${this.options.directory}: ${message}`);
  };

  /** Closes the store if it was opened. */
  async close(): Promise<void> {
    await (await this.opening?.catch(() => undefined))?.close();
  }
}
