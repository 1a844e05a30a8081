import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { TranscriptSink } from '../core/ports';

/** Saves transcripts as JSONL files, one per compaction, under a folder of their own. */
export class FileTranscriptSink implements TranscriptSink {
  constructor(
    private readonly directory: string,
    private readonly now: () => number = Date.now,
  ) {}

  async save(conversationId: string, messages: readonly unknown[]): Promise<string> {
    await mkdir(this.directory, { recursive: true });
    const safeId = conversationId.replace(/[^a-zA-Z0-9_-]/g, '_');
    const file = path.join(
      this.directory,
      `${safeId}-${new Date(this.now()).toISOString().replace(/[:.]/g, '-')}.jsonl`,
    );
    // Written in full before the history is replaced: a failed write stops the compaction.
    await writeFile(file, messages.map((message) => JSON.stringify(message)).join('\n') + '\n', {
      encoding: 'utf8',
      flag: 'wx',
    });
    return file;
  }
}
