import type { EthereumChain } from '../chain/open.js';
import type { Head } from '../chain/store.js';
import type { Config } from '../config/settings.js';
import { type ChainEventsOptions, createChainEvents } from '../live/eth/chainEvents.js';
import type { PendingSource } from '../live/eth/pendingRelay.js';
import { RelayedTransactions } from '../live/eth/relayedTransactions.js';
import type { RequestContext } from '../rpc/method.js';
import { StateReader } from '../state/stateReader.js';
import type { StateSource } from '../state/stateSource.js';
import { createTraceService, type TraceService } from '../tracing/replay.js';
import { type CallRunner, createEvmService, type EvmService } from '../workers/evmService.js';
import { blockBytes, type RpcBlock } from './eth/_shared/formatBlock.js';
import { logBytes, type RpcLog } from './eth/_shared/formatLog.js';
import { type RpcReceipt, receiptBytes } from './eth/_shared/formatReceipt.js';
import { createGasOracle, type GasOracle } from './eth/_shared/gasOracle.js';
import { ETH_LIVE_FORMAT, type EthChainEvents } from './eth/_shared/liveFormat.js';
import { RenderedByBlock } from './eth/_shared/rendered.js';
import type { UpstreamPool } from './eth/_shared/upstreamPool.js';

/** The sections of the configuration an Ethereum network's methods and the layers below them read. */
export type EthContextConfig = Config;

/**
 * The method limits of the `rpc` settings (reasons in `config/settings.ts`), converted once to
 * the types the handlers compare them with.
 */
export interface EthLimits {
  /** Most logs in one eth_getLogs answer (-32005 above). */
  getLogsMaxResults: number;
  /** Widest eth_getLogs block range (-32005 above). */
  getLogsMaxBlockRange: bigint;
  /** Most storage keys in one eth_getProof (-32602 above). */
  getProofMaxKeys: number;
  /** eth_simulateV1's limits on blocks, calls per block and calls (-38026 above). */
  simulateMaxBlocks: number;
  simulateMaxCallsPerBlock: number;
  simulateMaxCalls: number;
  /** Most storage slots in one eth_getStorageValues (-32005 above). */
  getStorageValuesMaxSlots: number;
  /** Most blocks one eth_feeHistory answer covers (longer requests are shortened). */
  feeHistoryMaxBlocks: bigint;
  /** Most traces in one trace_filter answer (-32005 above). */
  traceFilterMaxResults: number;
  /** Widest trace_filter block range, or undefined for none. */
  traceFilterMaxBlocks: bigint | undefined;
  /** Most calls in one trace_callMany (-32005 above). */
  traceCallManyMaxCalls: number;
  /** Largest page of ots_searchTransactionsBefore/After (erigon's error above). */
  otsMaxPageSize: number;
}

/** What Ethereum method handlers may use. Built once per network by the CLI. */
/** A request as an Ethereum network's handlers see it: its head is the chain store's. */
export type EthRequest = RequestContext<Head>;

export interface EthContext {
  /** Types only, never set: the head a request sees (`RequestContext.head`) is the chain store's. */
  readonly '~head'?: Head;
  chain: EthereumChain;
  /** Reads archive state at any block. */
  state: StateReader;
  /** Runs eth_call / eth_estimateGas in the EVM workers, over any block's state. */
  execution: CallRunner;
  /** Replays blocks with the tracer (cached; replays run in the EVM workers). */
  tracer: TraceService;
  /** The EVM workers (their queue, for the metrics; closed with the network). */
  evm: EvmService;
  /** eth_gasPrice and eth_maxPriorityFeePerGas suggestions. */
  gasOracle: GasOracle;
  limits: EthLimits;
  /** New heads and reorganisations as subscriptions and filters see them (fed by the follower). */
  events: EthChainEvents;
  /** `web3_clientVersion` answer. */
  clientVersion: string;
  /** Logs of recent blocks as eth_getLogs rendered them (absent: rendered every time). */
  renderedLogs?: RenderedByBlock<RpcLog>;
  /** Receipts of recent blocks as eth_getTransactionReceipt and eth_getBlockReceipts rendered them (absent: rendered every time). */
  renderedReceipts?: RenderedByBlock<RpcReceipt>;
  /** Blocks as eth_getBlockByNumber and eth_getBlockByHash rendered them, each form (hashes, full transactions) by itself (absent: rendered every time). */
  renderedBlocks?: RenderedByBlock<RpcBlock>;
  /** The followed node, where transactions are sent and pending ones found (absent: nothing followed). */
  pool?: UpstreamPool;
  /** Transactions relayed to it lately, and how long a receipt of one waits for its block (with `pool`). */
  relayed?: { transactions: RelayedTransactions; receiptWaitMs: number; accounts: boolean };
}

/** The {@link EthLimits} of the `rpc` settings and eth_simulateV1's `execution` ones. */
export function ethLimits({ rpc, execution }: Pick<Config, 'rpc' | 'execution'>): EthLimits {
  return {
    simulateMaxBlocks: execution.simulateMaxBlocks,
    simulateMaxCallsPerBlock: execution.simulateMaxCallsPerBlock,
    simulateMaxCalls: execution.simulateMaxCalls,
    getLogsMaxResults: rpc.getLogsMaxResults,
    getLogsMaxBlockRange: BigInt(rpc.getLogsMaxBlockRange),
    getProofMaxKeys: rpc.getProofMaxKeys,
    getStorageValuesMaxSlots: rpc.getStorageValuesMaxSlots,
    feeHistoryMaxBlocks: BigInt(rpc.feeHistoryMaxBlocks),
    traceFilterMaxResults: rpc.traceFilterMaxResults,
    traceFilterMaxBlocks: rpc.traceFilterMaxBlocks === undefined ? undefined : BigInt(rpc.traceFilterMaxBlocks),
    traceCallManyMaxCalls: rpc.traceCallManyMaxCalls,
    otsMaxPageSize: rpc.otsMaxPageSize,
  };
}

/**
 * Builds the context of an opened chain from the configuration: state caches (`caches`), the EVM
 * workers that run calls and trace replays (`execution`, `tracing`), the trace service's cache, the
 * gas price oracle (`gasOracle`), the method limits (`rpc`) and the chain events that subscriptions
 * and filters read (`subscriptions`), with the pending transactions `pending` relays (none by default), block and log
 * filters in Redis when `sharedFilters` is given, and the followed node's pool (`pool`, where
 * transactions are sent) when there is one. Each part reads its settings here,
 * once. In an archive that starts at block N, `stateSource` (the followed node) gives the state
 * reads — the state methods' and the EVM workers' — what the datadir does not hold. Workers start
 * on the first EVM job; `evm.close()` stops them (before the chain closes).
 */
export async function createEthContext(
  chain: EthereumChain,
  clientVersion: string,
  config: EthContextConfig,
  onWorkerFailure?: (reason: string, err?: unknown) => void,
  pending?: PendingSource,
  sharedFilters?: ChainEventsOptions['shared'],
  pool?: UpstreamPool,
  stateSource?: StateSource,
): Promise<EthContext> {
  const state = new StateReader(chain.level, config.caches, chain.start ? { source: stateSource } : undefined);
  const evm = createEvmService(chain, config, onWorkerFailure, stateSource);
  return {
    chain,
    state,
    execution: evm.calls,
    tracer: createTraceService(chain, { stateDb: state.db, settings: config.tracing, replay: evm.replay }),
    evm,
    gasOracle: createGasOracle(chain.store, config.gasOracle),
    limits: ethLimits(config),
    events: createChainEvents(chain.store, config.subscriptions, ETH_LIVE_FORMAT, { pending, shared: sharedFilters }),
    clientVersion,
    renderedLogs: new RenderedByBlock(config.caches.renderedLogsBytes, logBytes),
    renderedReceipts: new RenderedByBlock(config.caches.renderedReceiptsBytes, receiptBytes),
    renderedBlocks: new RenderedByBlock(config.caches.renderedBlocksBytes, blockBytes),
    pool,
    ...(pool === undefined
      ? {}
      : {
          relayed: {
            transactions: new RelayedTransactions(config.follow.relayedTransactions, 10 * 60_000),
            receiptWaitMs: config.follow.relayedReceiptWaitMs,
            accounts: config.follow.relayAccounts,
          },
        }),
  };
}
