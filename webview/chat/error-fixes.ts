/**
 * The buttons under a failed turn: each kind of failure comes with the fix a user would reach
 * for. A connection problem is the same for every provider — a server not running, a wrong
 * address, a certificate — so it always offers the settings (where the address is) and Retry.
 */
import type { AgentEvent } from '../../src/protocol/events';
import type { NoticeAction } from './turns';

export type ErrorKind = Extract<AgentEvent, { type: 'error' }>['kind'];

export function fixesFor(kind: ErrorKind): NoticeAction[] {
  switch (kind) {
    case 'authentication':
      return [
        { action: 'set_api_key', label: 'Set API Key' },
        { action: 'retry', label: 'Retry' },
      ];
    case 'connection':
    case 'bad_request':
    case 'configuration':
      return [
        { action: 'open_settings', label: 'Open Settings' },
        { action: 'retry', label: 'Retry' },
      ];
    case 'context_overflow':
      // OpenAgent already compacted and retried once: what is left is a fresh start or a larger window.
      return [
        { action: 'new_chat', label: 'New Chat' },
        { action: 'open_settings', label: 'Open Settings' },
      ];
    default:
      return [{ action: 'retry', label: 'Retry' }];
  }
}
