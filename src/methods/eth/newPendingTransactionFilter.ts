import type { MethodDefinition } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { noTransactionPool } from './subscribe.js';

/**
 * `eth_newPendingTransactionFilter`: refused with -32004, whatever its params: this node has no
 * transaction pool, and a filter that never collects anything would leave the client polling for
 * nothing. (The `newPendingTransactions` subscription is refused the same way.)
 */
export const newPendingTransactionFilter: MethodDefinition<EthContext> = {
  name: 'eth_newPendingTransactionFilter',
  async call(): Promise<never> {
    throw noTransactionPool('eth_newPendingTransactionFilter');
  },
};
