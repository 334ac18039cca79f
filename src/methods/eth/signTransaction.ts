import { keylessRefusal } from './_shared/keylessRefusal.js';

/** `eth_signTransaction`: -32004, refused (no keys) (`_shared/keylessRefusal.ts`). */
export const signTransaction = keylessRefusal('eth_signTransaction');
