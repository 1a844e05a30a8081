import type { ChatKeeping } from '../../../../src/core/session/chat-keeper';

/** A window's keeping place in memory; counts writes, and can be made to fail. */
export class MemoryKeeping implements ChatKeeping {
  text: string | undefined;
  writes = 0;
  failWrites = false;
  failReads = false;
  async read(): Promise<string | undefined> {
    if (this.failReads) throw new Error('EACCES: permission denied');
    return this.text;
  }
  async write(text: string): Promise<void> {
    this.writes++;
    if (this.failWrites) throw new Error('ENOSPC: no space left on device');
    this.text = text;
  }
  get kept(): { conversationId?: string; draft: string; queue: string[]; workspace: string } {
    return JSON.parse(this.text ?? 'null');
  }
}
