import { keylessRefusal } from './_shared/keylessRefusal.js';

/** `eth_signTypedData`: relayed to a followed node that holds the key, or -32004 (`_shared/keylessRefusal.ts`). */
export const signTypedData = keylessRefusal('eth_signTypedData');
