import { type OpRollup, rollupFromConfig } from './rollup.js';

/**
 * The OP-stack chains tracenode knows by their chain id: each one's upgrade times and EIP-1559
 * parameters as the Superchain Registry gives them (its `hardfork_configuration` and `optimism`
 * sections, as op-rs/kona vendors the registry at db4f661a7, `crates/protocol/registry/etc/configs.json`,
 * November 2025). Any other OP-stack chain is described by its own rollup config
 * (`rollupFromConfig`, op-node's `rollup.json`).
 *
 * The registry gives no Regolith time: every registry chain has Regolith from its Bedrock
 * genesis (op-geth's `params/superchain.go` sets `RegolithTime` to the genesis activation for all
 * of them), so it is 0 here. Without it a block before Canyon would run by Bedrock's deposit rules
 * (OP Mainnet's Regolith blocks of `fixtures/op-stack/rpc-caches/` show the difference).
 *
 * `pectra_blob_schedule_time` (the Sepolia chains) is a rule of the L1 blob fee op-node derives
 * blocks with, not of their execution, and is not kept.
 */

interface KnownChain {
  name: string;
  times: Partial<Record<'regolith' | 'canyon' | 'delta' | 'ecotone' | 'fjord' | 'granite' | 'holocene' | 'isthmus' | 'jovian', number>>;
  elasticity: number;
}

/** The Superchain's mainnet schedule (OP Mainnet's and Base's). */
const MAINNET = {
  regolith: 0,
  canyon: 1704992401,
  delta: 1708560000,
  ecotone: 1710374401,
  fjord: 1720627201,
  granite: 1726070401,
  holocene: 1736445601,
  isthmus: 1746806401,
  jovian: 1764691201,
};
/** The Superchain's Sepolia schedule (OP Sepolia's and Base Sepolia's). */
const SEPOLIA = {
  regolith: 0,
  canyon: 1699981200,
  delta: 1703203200,
  ecotone: 1708534800,
  fjord: 1716998400,
  granite: 1723478400,
  holocene: 1732633200,
  isthmus: 1744905600,
  jovian: 1763568001,
};

const KNOWN: Record<string, KnownChain> = {
  '10': { name: 'OP Mainnet', times: MAINNET, elasticity: 6 },
  '8453': { name: 'Base', times: MAINNET, elasticity: 6 },
  '130': {
    name: 'Unichain',
    times: { regolith: 0, canyon: 0, delta: 0, ecotone: 0, fjord: 0, granite: 0, holocene: 1736445601, isthmus: 1746806401, jovian: 1764691201 },
    elasticity: 6,
  },
  '11155420': { name: 'OP Sepolia', times: SEPOLIA, elasticity: 6 },
  '84532': { name: 'Base Sepolia', times: SEPOLIA, elasticity: 10 },
  '1301': { name: 'Unichain Sepolia', times: { ...SEPOLIA, canyon: 0, delta: 0, ecotone: 0, fjord: 0, granite: 0, holocene: 1734559200 }, elasticity: 6 },
};

/** The known chain of `chainId`: its name and rules; undefined for a chain tracenode does not know. */
export function knownOpChain(chainId: bigint): { name: string; rollup: OpRollup } | undefined {
  const chain = KNOWN[chainId.toString()];
  if (chain === undefined) return undefined;
  const config = Object.fromEntries(Object.entries(chain.times).map(([upgrade, at]) => [`${upgrade}_time`, at]));
  return {
    name: chain.name,
    rollup: rollupFromConfig({
      l2_chain_id: chainId.toString(),
      ...config,
      chain_op_config: { eip1559Elasticity: chain.elasticity, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
    }),
  };
}

/** The chain ids tracenode knows. */
export const KNOWN_OP_CHAIN_IDS: readonly bigint[] = Object.keys(KNOWN).map(BigInt);
