import { keylessRefusal } from './_shared/keylessRefusal.js';

/** `eth_signTransaction`: relayed to a followed node that holds the key, or -32004 (`_shared/keylessRefusal.ts`). */
export const signTransaction = keylessRefusal('eth_signTransaction');
