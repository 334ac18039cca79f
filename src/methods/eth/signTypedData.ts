import { keylessRefusal } from './_shared/keylessRefusal.js';

/** `eth_signTypedData`: -32004, refused (no keys) (`_shared/keylessRefusal.ts`). */
export const signTypedData = keylessRefusal('eth_signTypedData');
