import type { BlockHeader } from '@ethereumjs/block';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import { evmBlockchain } from '../chain/blockHashes.js';
import type { ChainStore } from '../chain/store.js';
import type { BlockOverrides } from './callArgs.js';
import { CallError } from './callResult.js';
import type { Fork, Forks } from './forks.js';

/**
 * The block a call runs in: the header's fields after block overrides, the fork they select, and
 * the BLOCKHASH window geth serves to a call (ethereum/go-ethereum
 * `internal/ethapi/override/override.go` BlockOverrides.Apply, `internal/ethapi/api.go` doCall).
 */

/** Block context of a run: the header's fields after overrides, and the fork they select. */
export interface BlockContext {
  header: BlockHeader;
  number: bigint;
  timestamp: bigint;
  gasLimit: bigint;
  coinbase: Uint8Array;
  difficulty: bigint;
  prevRandao: Uint8Array;
  baseFee: bigint | undefined;
  blobBaseFee: bigint | undefined;
  fork: Fork;
}

const ZERO_HASH = new Uint8Array(32);

/**
 * The context of a call at `header` with block overrides `o`. Overriding the number or time may
 * select another fork; fields geth decodes but refuses for eth_call throw {@link CallError}.
 */
export function blockContext(header: BlockHeader, o: BlockOverrides | undefined, forks: Forks): BlockContext {
  const unsupported = o?.unsupported[0];
  if (unsupported !== undefined) throw new CallError(`block override "${unsupported}" is not supported for this RPC method`);
  const number = o?.number ?? header.number;
  const timestamp = o?.time ?? header.timestamp;
  let hardfork = header.common.hardfork();
  if (o?.number !== undefined || o?.time !== undefined) {
    hardfork = forks.hardforkAt(number, timestamp);
    // Chains that merged by total difficulty: keep a post-merge header post-merge.
    const probe = forks.get(hardfork).common;
    if (header.common.gteHardfork('paris') && !probe.gteHardfork('paris')) hardfork = 'paris';
  }
  return {
    header,
    number,
    timestamp,
    gasLimit: o?.gasLimit ?? header.gasLimit,
    coinbase: o?.feeRecipient ?? header.coinbase.bytes,
    difficulty: o?.difficulty ?? header.difficulty,
    prevRandao: o?.prevRandao ?? header.mixHash,
    baseFee: o?.baseFeePerGas ?? header.baseFeePerGas,
    blobBaseFee: o?.blobBaseFee ?? (header.excessBlobGas !== undefined ? header.getBlobGasPrice() : undefined),
    fork: forks.get(hardfork),
  };
}

/**
 * BLOCKHASH as geth serves it to a call: canonical hashes below the block the call runs on, and
 * zero for that block and later ones (which a block-number override can bring into the window).
 */
export function blockchainBelow(store: ChainStore, below: bigint): EVMMockBlockchainInterface {
  // Calls mostly run at the head: the last window of each store is reused (it holds no state).
  const last = lastWindow.get(store);
  if (last?.below === below) return last.chain;
  const base = evmBlockchain(store);
  const chain: EVMMockBlockchainInterface = {
    async getBlock(n: number | bigint) {
      if (BigInt(n) >= below) return { hash: () => ZERO_HASH };
      return base.getBlock(Number(n));
    },
    putBlock: base.putBlock,
    shallowCopy: () => chain,
  };
  lastWindow.set(store, { below, chain });
  return chain;
}

const lastWindow = new WeakMap<ChainStore, { below: bigint; chain: EVMMockBlockchainInterface }>();

/** The block the EVM sees for a message or a system call run in `ctx` (`runCall`'s `block`). */
export function evmBlock(ctx: BlockContext) {
  return {
    header: {
      number: ctx.number,
      coinbase: new Address(ctx.coinbase),
      timestamp: ctx.timestamp,
      difficulty: ctx.difficulty,
      prevRandao: ctx.prevRandao,
      gasLimit: ctx.gasLimit,
      baseFeePerGas: ctx.baseFee,
      slotNumber: 0n,
      getBlobGasPrice: () => ctx.blobBaseFee,
    },
  };
}
