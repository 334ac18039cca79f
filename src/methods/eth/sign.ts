import { keylessRefusal } from './_shared/keylessRefusal.js';

/** `eth_sign`: -32004, refused (no keys) (`_shared/keylessRefusal.ts`). */
export const sign = keylessRefusal('eth_sign');
