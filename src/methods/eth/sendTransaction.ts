import { keylessRefusal } from './_shared/keylessRefusal.js';

/** `eth_sendTransaction`: -32004, refused (no keys, no pool) (`_shared/keylessRefusal.ts`). */
export const sendTransaction = keylessRefusal('eth_sendTransaction');
