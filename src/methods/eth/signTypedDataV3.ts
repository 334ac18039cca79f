import { keylessRefusal } from './_shared/keylessRefusal.js';

/** `eth_signTypedData_v3`: relayed to a followed node that holds the key, or -32004 (`_shared/keylessRefusal.ts`). */
export const signTypedDataV3 = keylessRefusal('eth_signTypedData_v3');
