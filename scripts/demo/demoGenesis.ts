// Owns the demo chain's genesis.json: the fork schedule (PoW with ethash until the merge block,
// then Shanghai and Cancun by time), the funded accounts, the precompiles, the EIP-4788 contract and
// StateBox with storage already set at block 0.
import type { GethGenesis, GethGenesisAlloc } from '@ethereumjs/common';
import { bigIntToHex } from '@ethereumjs/util';
import { type Hex, numberToHex, stringToHex } from 'viem';
import { mappingSlot, slotHex } from '../lib/abi.js';
import { gethConfig, precompileAddresses } from '../lib/genesis.js';
import {
  alice,
  BEACON_ROOTS,
  BEACON_ROOTS_CODE,
  bob,
  CANCUN_TIME,
  CHAIN_ID,
  carol,
  dave,
  ETHER,
  FORK,
  GENESIS_GAS_LIMIT,
  GENESIS_TIME,
  MERGE_BLOCK,
  SHANGHAI_TIME,
  STATEBOX,
} from './demoParams.js';

const ZERO32: Hex = `0x${'00'.repeat(32)}`;

/** StateBox's storage at genesis: slot → value. */
const STATEBOX_GENESIS_STORAGE: [Hex, bigint][] = [
  [slotHex(0), 1n], // counter
  [slotHex(1), BigInt(alice.address)], // owner
  [mappingSlot(alice.address, 2), 1000n], // balances[alice]
  [mappingSlot(7n, mappingSlot(alice.address, 3)), 42n], // grid[alice][7]
];

/** What the funded accounts hold, in ether. */
const FUNDS: [typeof alice, bigint][] = [
  [alice, 10_000n],
  [bob, 1_000n],
  [carol, 1_000n],
  [dave, 1_000n],
];

/**
 * The demo genesis. `ttd` (terminalTotalDifficulty) is not read by ethereumjs, where
 * mergeNetsplitBlock decides; it is filled in once the total difficulty of the last PoW block is
 * known. Alloc keys are written without 0x, as geth's own genesis files do.
 */
export function buildDemoGenesis(ttd: number, stateBoxRuntime: Hex): GethGenesis {
  const alloc: GethGenesisAlloc = {};
  for (const address of precompileAddresses()) alloc[address.slice(2)] = { balance: '0x1' };
  alloc[BEACON_ROOTS.slice(2)] = { balance: '0x0', nonce: '0x1', code: BEACON_ROOTS_CODE };
  alloc[STATEBOX.slice(2)] = {
    balance: '0x0',
    nonce: '0x1',
    code: stateBoxRuntime,
    storage: Object.fromEntries(STATEBOX_GENESIS_STORAGE.map(([k, v]) => [k, numberToHex(v, { size: 32 })])),
  };
  for (const [a, ether] of FUNDS) alloc[a.address.slice(2)] = { balance: bigIntToHex(ether * ETHER) };
  return {
    config: gethConfig(CHAIN_ID, {
      constantinopleBlock: FORK.constantinople,
      berlinBlock: FORK.berlin,
      londonBlock: FORK.london,
      mergeNetsplitBlock: MERGE_BLOCK,
      shanghaiTime: SHANGHAI_TIME,
      cancunTime: CANCUN_TIME,
      terminalTotalDifficulty: ttd,
      ethash: true,
    }),
    nonce: '0x0',
    timestamp: bigIntToHex(BigInt(GENESIS_TIME)),
    extraData: stringToHex('tracenode demo chain'),
    gasLimit: bigIntToHex(GENESIS_GAS_LIMIT),
    difficulty: '0x20000',
    mixHash: ZERO32,
    coinbase: '0x0000000000000000000000000000000000000000',
    alloc,
    number: '0x0',
    gasUsed: '0x0',
    parentHash: ZERO32,
  };
}
