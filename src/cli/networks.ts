import { bytesToHex } from '@ethereumjs/util';
import type { EthereumChain } from '../chain/open.js';
import { createEthContext } from '../methods/context.js';
import { ethereumMethods } from '../methods/ethereum.js';
import type { MethodTable } from '../rpc/method.js';
import type { NetworkHandle } from '../rpc/server.js';

/** Wires an opened Ethereum chain into a network the server can route to. */
export async function createEthereumNetwork(
  chain: EthereumChain,
  opts: { name: string; hostnames?: readonly string[]; clientVersion: string },
): Promise<NetworkHandle> {
  return {
    name: opts.name,
    hostnames: opts.hostnames ?? [],
    methods: ethereumMethods as MethodTable<unknown>,
    context: await createEthContext(chain, opts.clientVersion),
    async health() {
      const head = await chain.store.head();
      return head ? { ok: true, head: { number: Number(head.number), hash: bytesToHex(head.hash) } } : { ok: false };
    },
  };
}
