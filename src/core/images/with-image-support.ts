/**
 * A model client that sends images only to models that take them (issue 36): for any other, each
 * image becomes a text note saying what it was and why it is missing; and never more than the
 * per-request cap (older images become notes). `sees` is read at each call, so the setting and a
 * model switch apply at once.
 */
import type { LlmClient, LlmRequest } from '../llm/llm-client';
import { IMAGE_LIMITS } from './image-limits';
import { capImages, countImages, modelAcceptsImages, withoutImages } from './image-notes';

export function withImageSupport(client: LlmClient, override?: (model: string) => boolean | undefined): LlmClient {
  return {
    provider: client.provider,
    listModels: (signal) => client.listModels(signal),
    server: client.server,
    stream(request: LlmRequest) {
      if (!request.messages.some((message) => countImages(message) > 0)) return client.stream(request);
      const sees = modelAcceptsImages(request.model, override?.(request.model));
      const messages = sees
        ? capImages(request.messages, IMAGE_LIMITS.maxPerRequest)
        : withoutImages(request.messages, request.model);
      return client.stream({ ...request, messages });
    },
  };
}
