import { keylessRefusal } from './_shared/keylessRefusal.js';

/** `eth_signTypedData_v4`: -32004, refused (no keys) (`_shared/keylessRefusal.ts`). */
export const signTypedDataV4 = keylessRefusal('eth_signTypedData_v4');
