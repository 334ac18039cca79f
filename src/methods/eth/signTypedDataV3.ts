import { keylessRefusal } from './_shared/keylessRefusal.js';

/** `eth_signTypedData_v3`: -32004, refused (no keys) (`_shared/keylessRefusal.ts`). */
export const signTypedDataV3 = keylessRefusal('eth_signTypedData_v3');
