import { keylessRefusal } from './_shared/keylessRefusal.js';

/**
 * `eth_sendTransaction`: relayed to a followed node that holds the sender's key, or -32004
 * (`_shared/keylessRefusal.ts`). A relayed transaction's receipt waits for its block as one sent
 * with eth_sendRawTransaction does.
 */
export const sendTransaction = keylessRefusal('eth_sendTransaction', {
  onResult: (ctx, hash) => {
    if (typeof hash === 'string') ctx.relayed?.transactions.note(hash);
  },
});
