/**
 * Past spending for budgets, from the store's usage records: what a conversation, a day or a
 * month cost before this session (and in other windows), so budgets survive restarts.
 */
import type { ConversationStore } from '../ports';
import type { SpendingLedger } from './budget';
import { totalTokens } from '../events/usage';

export function storeLedger(store: () => Promise<ConversationStore | undefined>): SpendingLedger {
  return {
    async spent(query) {
      const totals = await (await store())?.usageTotals(query);
      if (!totals) return { usd: 0, tokens: 0 };
      return {
        usd: totals.costUsd,
        tokens: totalTokens(totals),
      };
    },
  };
}
