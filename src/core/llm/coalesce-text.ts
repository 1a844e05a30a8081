/**
 * Text that arrives together goes on together. A server streams an answer a few characters per
 * event, and a network chunk holds hundreds of them: passed on one by one, each would become an
 * event for every surface, the history, the store and the session list — tens of thousands of
 * small objects per answer, whose garbage collection stalls the editor when several sessions
 * stream at once (issue 33's benchmark). Here consecutive text deltas are joined for as long as
 * the next one is already there; the moment the stream has to wait for the network (the event
 * loop turns first), what was joined goes on, so nothing is shown later than it was before.
 */
import type { LlmClient, LlmStreamPart } from './llm-client';
import { isLoopTurn, loopTurned } from './time-slice';

/** A joined delta goes on at this size even if more is there (the screen keeps moving). */
export const MAX_JOINED_CHARS = 16_384;

export async function* coalesceTextDeltas(parts: AsyncIterable<LlmStreamPart>): AsyncGenerator<LlmStreamPart> {
  const iterator = parts[Symbol.asyncIterator]();
  let text = '';
  // The part asked for and not yet received (only while a joined text is handed on early).
  let pending: Promise<IteratorResult<LlmStreamPart>> | undefined;
  let finished = false;
  try {
    for (;;) {
      pending = iterator.next();
      let result: IteratorResult<LlmStreamPart> | Awaited<ReturnType<typeof loopTurned>>;
      try {
        result = text ? await Promise.race([pending, loopTurned()]) : await pending;
      } catch (error) {
        // The stream failed (or was stopped): what arrived before still goes on, then the failure.
        pending = undefined;
        if (text) {
          const joined = text;
          text = '';
          yield { type: 'text_delta', text: joined };
        }
        throw error;
      }
      if (isLoopTurn(result)) {
        // The next part is not there yet: what was joined goes on now.
        const joined = text;
        text = '';
        yield { type: 'text_delta', text: joined };
        result = await pending;
      }
      pending = undefined;
      if (result.done) break;
      const part = result.value;
      if (part.type === 'text_delta') {
        text += part.text;
        if (text.length >= MAX_JOINED_CHARS) {
          const joined = text;
          text = '';
          yield { type: 'text_delta', text: joined };
        }
        continue;
      }
      if (text) {
        const joined = text;
        text = '';
        yield { type: 'text_delta', text: joined };
      }
      yield part;
    }
    finished = true;
    if (text) yield { type: 'text_delta', text };
  } finally {
    if (!finished) {
      // The consumer stopped (or the stream failed): the source is closed too — once its
      // outstanding part has come, if one was asked for (an async generator queues return()).
      if (pending)
        void pending.then(
          () => iterator.return?.(),
          () => undefined,
        );
      else await iterator.return?.();
    }
  }
}

/** The client whose streams' text deltas are joined as above. */
export function withCoalescedText(client: LlmClient): LlmClient {
  return {
    provider: client.provider,
    listModels: (signal) => client.listModels(signal),
    server: client.server,
    stream: (request) => coalesceTextDeltas(client.stream(request)),
  };
}
