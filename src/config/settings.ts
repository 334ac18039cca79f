import { z } from 'zod';

/**
 * Every setting and limit of tracenode, in one table: its type, its default and the reason for
 * the default. The configuration is built from this table (`config/load.ts`): a config file
 * (`--config tracenode.yaml` or JSON), then `TRACENODE_*` environment variables, then command-line
 * flags, each overriding the one before; a value nobody sets is the default here. README's
 * configuration table is rendered from it (`renderSettingsTable`).
 *
 * Names: a setting `transport.httpMaxBodyBytes` is `transport: { httpMaxBodyBytes: … }` in the
 * file, `TRACENODE_TRANSPORT_HTTP_MAX_BODY_BYTES` in the environment and
 * `--transport.http-max-body-bytes` on the command line. Settings of the `server` section have no
 * prefix (`--port`, `TRACENODE_PORT`), as they always had.
 */

/** One setting: how it is checked, its default (undefined: unset), and why. */
export interface Setting<T = unknown> {
  readonly schema: z.ZodType<T>;
  readonly default: T;
  readonly reason: string;
  /** The value's placeholder in `--help` (`DIR`, `FILE`…); `N` for numbers, `VALUE` otherwise. */
  readonly arg?: string;
}

const setting = <T>(schema: z.ZodType<T>, value: T, reason: string, arg?: string): Setting<T> => ({ schema, default: value, reason, arg });

const positiveInt = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const nonNegativeInt = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const bytes = positiveInt;
const MiB = 1024 * 1024;

/** The settings, by section. */
export const SETTINGS = {
  server: {
    host: setting(
      z.string().min(1),
      '127.0.0.1',
      'Address to listen on. Loopback by default: a node reachable from other machines is a decision, and `serve` warns when it is made.',
      'ADDR',
    ),
    port: setting(z.number().int().min(0).max(65535), 8545, 'TCP port to listen on: the port Ethereum clients and tools try first.', 'PORT'),
    datadir: setting(
      z.string().min(1).optional(),
      undefined,
      'The `mainnet` network: an Ethereum or Starknet datadir (required unless `networks` names one; `npm start` uses `./data`).',
      'DIR',
    ),
    networks: setting(
      z.string().optional(),
      undefined,
      'More networks as `name=dir,…`, chosen by the first label of the Host name, as hosted providers name them.',
      'N=DIR,…',
    ),
    apiKeys: setting(
      z.string().optional(),
      undefined,
      'Comma-separated API keys with no policies (everything allowed, no limits); this or `keysFile` is required.',
      'K1,K2',
    ),
    keysFile: setting(
      z.string().optional(),
      undefined,
      'Keys and their policies (YAML or JSON), or one key per line; reloaded when it changes or on SIGHUP.',
      'FILE',
    ),
    logLevel: setting(
      z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
      'info',
      'pino log level: one access-log line per request at info.',
      'LEVEL',
    ),
    logBufferBytes: setting(
      z.number().int().min(0).max(MiB),
      64 * 1024,
      'Log lines are written in chunks of this many bytes (0: each line at once): one write per access line costs more than the rest of a cached read, and a write per 4 KiB still ~1.3 µs of each WebSocket call.',
      'BYTES',
    ),
    logFlushMs: setting(
      z.number().int().min(10).max(60_000),
      250,
      'Buffered log lines are written at least this often, and at exit, so a quiet node logs without delay worth noticing.',
      'MS',
    ),
    logMaxQueuedBytes: setting(
      z
        .number()
        .int()
        .min(64 * 1024)
        .max(1024 * MiB),
      16 * MiB,
      'Log output waiting for a slow reader (a stalled pipe) is dropped beyond this, rather than growing without bound or stalling requests.',
      'BYTES',
    ),
    metricsHost: setting(z.string().min(1), '127.0.0.1', 'The metrics listener stays on loopback unless the operator opens it.', 'ADDR'),
    metricsPort: setting(
      z.number().int().min(0).max(65535).optional(),
      undefined,
      'A separate listener for GET /metrics; unset: /metrics is served on the main port only.',
      'PORT',
    ),
    follow: setting(
      z.string().min(1).optional(),
      undefined,
      'Follow an upstream node (geth, reth, anvil): a URL for the default network, or `name=URL,…` per network; `ws://` URLs get new heads pushed, `http://` ones are polled.',
      'URL',
    ),
    redis: setting(
      z
        .string()
        .regex(/^rediss?:\/\//, 'a redis:// or rediss:// URL')
        .optional(),
      undefined,
      'Count per-key rates and quotas, and keep block and log filters, in this Redis, shared by every replica behind a load balancer; unset: each process keeps its own.',
      'URL',
    ),
  },
  redis: {
    keyPrefix: setting(z.string().max(64), 'tracenode:', 'Every key this node writes starts with it, so one Redis can serve other programs too.'),
    commandTimeoutMs: setting(
      positiveInt,
      100,
      'A limiter command not answered by then counts the call locally: a stalled Redis must not stall every request (on a LAN it answers in well under 1 ms).',
      'MS',
    ),
    connectTimeoutMs: setting(positiveInt, 2000, 'A connection attempt that takes longer is abandoned and retried.', 'MS'),
    reconnectMaxMs: setting(
      positiveInt,
      2000,
      'Reconnection attempts start 100 ms apart and grow to this, so a returning Redis is used again within it.',
      'MS',
    ),
  },
  transport: {
    httpMaxBodyBytes: setting(bytes, 5 * MiB, "geth's `defaultBodyLimit`: a larger body is HTTP 413."),
    httpMaxBatchItems: setting(positiveInt, 1000, "geth's `BatchRequestLimit`: a larger batch is one `batch too large` error."),
    wsMaxMessageBytes: setting(
      bytes,
      5 * MiB,
      'The HTTP body limit, so a request accepted over one transport is accepted over the other; larger closes with 1009.',
    ),
    wsMaxBatchItems: setting(positiveInt, 1000, 'geth applies the same batch limit to every transport.'),
    maxMethodNameLength: setting(positiveInt, 2048, "geth's `maxMethodNameLength`: keeps giant names out of logs."),
    batchResponseMaxBytes: setting(
      bytes,
      25_000_000,
      "geth's `BatchResponseMaxSize`: later items get -32003, so one batch cannot make the server hold gigabytes.",
    ),
    wsMaxInFlightMessages: setting(
      positiveInt,
      32,
      'Messages one socket may have in progress; past it the server stops reading that socket (TCP backpressure).',
    ),
    wsMaxBufferedBytes: setting(
      bytes,
      16 * MiB,
      'Bytes of answers a socket may leave unread: what is queued on it less its largest frame (the answer being written, whatever its size, which `wsWriteStallMs` bounds); past it the connection is closed (1008), so a client that never reads cannot grow server memory.',
    ),
    wsWriteStallMs: setting(
      positiveInt,
      10_000,
      'When one frame alone keeps a socket over its unread limit (a large answer or notification), the connection is closed (1008) only once the client has taken no byte of it for this long: geth gives a WebSocket write 10 s (`defaultWriteTimeout`).',
    ),
    wsPingIntervalMs: setting(
      positiveInt,
      30_000,
      "geth's WebSocket ping interval: each connection is pinged this often, and one that has not answered the previous ping is closed (a dead peer's subscriptions end with it).",
    ),
    httpDiscardMaxBytes: setting(
      bytes,
      64 * MiB,
      "A body over `httpMaxBodyBytes` is answered 413, then read and discarded up to this many bytes before the connection is closed, as nginx's lingering close does: closing at once would reset the connection under a client still writing its body, which then never reads the 413. A larger body still gets its 413 and then a reset.",
    ),
    httpDiscardIdleMs: setting(
      positiveInt,
      5000,
      "nginx's `lingering_timeout`: a refused body whose bytes stop coming for this long has its connection closed.",
    ),
    wsCloseGraceMs: setting(positiveInt, 1000, 'How long shutdown waits for sockets to answer the close frame before cutting them.'),
    wsSlowConsumerGraceMs: setting(
      positiveInt,
      5000,
      'A socket closed (1008) for leaving answers or notifications unread past its limit gets this long to read what was queued and the close frame; then it is cut, so a client that has stopped reading holds no server memory beyond it.',
    ),
    shutdownDrainMs: setting(
      positiveInt,
      30_000,
      "How long SIGTERM or SIGINT lets the requests already received (HTTP, batches, WebSocket frames) run; what is still running then is answered -32000 `the node is shutting down` and the node closes: Kubernetes' default termination grace period (30 s), after which it kills the process anyway.",
    ),
    shutdownRepeatGraceMs: setting(
      nonNegativeInt,
      1000,
      "A second SIGTERM or SIGINT this soon after the first is the same stop reaching the node twice — a process group's signal that its parent (npm, a shell, systemd's control group) also forwards — and is not taken as the operator's `exit now`; one later exits at once.",
    ),
    shutdownNoticeMs: setting(
      nonNegativeInt,
      3000,
      "After the signal the listener keeps accepting (every answer closing its connection) while /health answers 503, until no request has come for `shutdownQuietMs`, at most this long: a load balancer still sending before its health checks take the node out is served, not refused. deploy/haproxy.cfg's checks take a node out within about 1.5 s. Then the connections already queued in the kernel are taken before the listener closes, for at most as long again (a starved serving thread accepts about one a turn).",
    ),
    shutdownQuietMs: setting(
      positiveInt,
      200,
      'During a shutdown, a listener, keep-alive connection or WebSocket counts as idle once nothing has come on it for this long (and nothing is in progress), and is closed; a WebSocket gets its pending answers, then 1001.',
    ),
  },
  cors: {
    maxAgeSeconds: setting(nonNegativeInt, 600, 'How long a browser may cache a preflight answer (Chromium caps it at 2 hours).'),
  },
  rpc: {
    getLogsMaxResults: setting(positiveInt, 10_000, 'Infura, Alchemy and QuickNode cap eth_getLogs at 10,000 logs with the same message.'),
    getLogsMaxBlockRange: setting(
      positiveInt,
      100_000,
      'A log scan reads every header of its range; 100,000 take a few seconds. Providers cap lower (QuickNode 10,000).',
    ),
    getProofMaxKeys: setting(positiveInt, 1024, "geth's limit on storage keys in one eth_getProof."),
    getStorageValuesMaxSlots: setting(positiveInt, 1024, "geth's `maxGetStorageSlots`: storage slots in one eth_getStorageValues (-32005 above)."),
    feeHistoryMaxBlocks: setting(positiveInt, 1024, "geth's `MaxHeaderHistory`: longer requests are shortened."),
    traceFilterMaxResults: setting(positiveInt, 10_000, 'Infura documented 10,000 traces per trace_filter answer; more is -32005, never a truncated list.'),
    traceFilterMaxBlocks: setting(
      positiveInt.optional(),
      undefined,
      'No range cap by default: the address index makes wide ranges cheap. reth caps at 100 because it scans.',
    ),
    traceCallManyMaxCalls: setting(
      positiveInt,
      100,
      'One trace_callMany runs its calls on one EVM worker under one eth_call deadline; a longer list is -32005 rather than a timeout.',
    ),
    otsMaxPageSize: setting(
      positiveInt,
      25,
      "erigon's `--ots.search.max.pagesize` default, and Otterscan's page: a larger ots_searchTransactions* page is refused with erigon's `max allowed page size` error.",
    ),
  },
  subscriptions: {
    maxPerConnection: setting(
      positiveInt,
      100,
      'eth_subscribe subscriptions one WebSocket connection may hold (-32005 past it): apps use a handful; each costs work on every block.',
    ),
    maxBacklogBytes: setting(
      bytes,
      8 * MiB,
      'Bytes of notifications a subscriber may leave unread: what is queued on its socket less its largest frame (the one being written, whatever its size, which `transport.wsWriteStallMs` bounds); past it the connection is closed (1008, counted as notification_backlog), so a client that never reads cannot grow server memory.',
    ),
    filtersPerKey: setting(
      positiveInt,
      1000,
      'eth_newFilter / eth_newBlockFilter filters one API key may hold (-32005 past it; expired ones do not count): each holds its changes between polls.',
    ),
    filterTimeoutMs: setting(positiveInt, 15 * 60_000, "A filter not polled for this long is removed (Infura's 15 minutes; geth's is 5)."),
    filterMaxChanges: setting(
      positiveInt,
      10_000,
      'Items (logs or block hashes) one filter may collect between polls, the getLogs result cap; past it the filter is removed and its next poll is `filter not found`.',
    ),
    maxBlocksBack: setting(
      positiveInt,
      1024,
      "Starknet subscriptions started from a past block_id replay at most this many blocks up to the head (error 68 past it): the Starknet WebSocket spec's limit, pathfinder's default.",
    ),
  },
  execution: {
    gasCapFactor: setting(positiveInt, 10, "eth_call gas defaults to, and is capped at, this many times the block's gas limit (Infura's documented cap)."),
    callTimeoutMs: setting(positiveInt, 5000, "geth's `--rpc.evmtimeout`: one call holds the EVM at most this long."),
    callCacheBytes: setting(
      nonNegativeInt,
      16 * MiB,
      'eth_call answers kept per block hash and call, by estimated size (0: off): dapps and price feeds ask the same views of each block many times; never `pending`.',
    ),
    estimateCacheBytes: setting(
      nonNegativeInt,
      4 * MiB,
      'eth_estimateGas answers kept per block hash and call, by estimated size (0: off): wallets and dapp pages estimate the same actions many times in a block, and an estimate is several EVM runs; never `pending`.',
    ),
    simulateGasBudget: setting(
      positiveInt,
      50_000_000,
      "geth's `--rpc.gascap` (50,000,000) as eth_simulateV1 uses it: the gas all calls of one request may use together; a call's gas is clamped to what is left (and to the eth_call cap of the base block).",
    ),
    simulateMaxBlocks: setting(positiveInt, 256, "geth's `maxSimulateBlocks`: blocks one eth_simulateV1 may span, gaps included (-38026 above)."),
    simulateMaxCallsPerBlock: setting(positiveInt, 5000, "geth's `maxSimulateCallsPerBlock`: calls in one simulated block (-38026 above)."),
    simulateMaxCalls: setting(positiveInt, 10_000, "geth's `maxSimulateTotalCalls`: calls in one eth_simulateV1 (-38026 above)."),
    estimateErrorRatio: setting(
      z.number().positive().max(1),
      0.015,
      "geth's estimate gas error ratio: the search stops within 1.5 % of the lowest passing gas.",
    ),
    evmPoolSizePerHardfork: setting(positiveInt, 64, 'Idle EVMs kept per hardfork for reuse; more are built on demand.'),
    evmFastPaths: setting(
      z.boolean(),
      true,
      "The call engine's speed-ups over @ethereumjs/evm 10.1.3 (src/execution/evm/README.md: copied interpreter entry points, cached jump analyses, a faster MSTORE, a set for EIP lookups). false: run the library as published, to check an upgrade or rule the speed-ups out; the answers are the same, an eth_call of a view costs about three times the CPU (bench/callCosts.ts --plain).",
    ),
    jumpAnalysisCodeBytes: setting(
      bytes,
      2 * MiB,
      'Contract code whose jump analyses each EVM worker keeps (~16 bytes of memory a code byte: ~35 MiB): a few hundred contracts, more than the hot set of calls.',
    ),
    evmWorkers: setting(
      positiveInt.max(256).optional(),
      undefined,
      'EVM worker threads (calls, estimates, trace replays); unset: one a core. The thread that serves clients never runs the EVM.',
      'N',
    ),
    evmQueueMax: setting(
      positiveInt,
      5000,
      'EVM jobs waiting for a worker; past it a call is answered -32005 (node busy) at once rather than waiting without bound: five full HTTP batches.',
    ),
    evmJobsPerWorker: setting(
      positiveInt.max(16),
      2,
      'Jobs a busy EVM worker is handed at once (the one it runs and its next ones): under load it finds its next job at hand rather than sleeping until the answer to its last one reaches the serving thread. 1: a job at a time.',
    ),
    evmWorkerYoungGenerationMb: setting(
      positiveInt.max(4096),
      96,
      "V8's young generation of each EVM worker, MiB: a call allocates mostly short-lived objects, and a young generation twice V8's default halves the collections and the GC threads' wake-ups they cost (eth_call throughput +4–17 % measured in process), for up to this much more memory a worker under load.",
    ),
    evmWatchdogGraceMs: setting(
      positiveInt,
      2000,
      'A worker that has not answered this long after its call deadline is replaced (something kept the deadline check from running).',
    ),
    evmWorkerNice: setting(
      z.number().int().min(0).max(19),
      5,
      'Niceness of the EVM worker threads (Linux sets it per thread): on a CPU that EVM work fills, the thread that answers every request goes first (bench, 2 cores, 4 clients sending heavy calls: a storage read p99 1.3-2.0x idle at 5, 3.1-5.1x at 0), for some eth_call throughput there. 0: as the process.',
    ),
    evmWorkerStartTimeoutMs: setting(
      positiveInt,
      30000,
      'A new EVM worker must have opened the database and loaded its modules by then, else it is replaced (a start takes well under a second).',
    ),
    evmWorkerCloseMs: setting(
      positiveInt,
      5000,
      'At shutdown an idle EVM worker closes its own database handle and exits; one still there after this is terminated (a close takes milliseconds).',
    ),
  },
  tracing: {
    cacheBytes: setting(bytes, 64 * MiB, 'Traced blocks kept in memory: the trees of a few hundred ordinary mainnet blocks.'),
    replayDiffCacheBytes: setting(
      bytes,
      32 * MiB,
      'State-diff replays kept (trace_replay* with stateDiff), by estimated size: asking again for a block costs no replay.',
    ),
    maxConcurrentReplays: setting(
      positiveInt,
      2,
      'Block replays run at once on the main thread (reindex-traces; served replays run in the EVM workers): execution is CPU-bound, so more would only interleave.',
    ),
    replayTimeoutMs: setting(
      positiveInt,
      60_000,
      "A block replay's worker is replaced after this long: a full mainnet block replays in seconds, so this only catches a stuck worker.",
    ),
    debugTimeoutMs: setting(
      positiveInt,
      5000,
      "geth's default debug_trace* `timeout` (5 s): a traced transaction running longer fails with `execution timeout`.",
    ),
    debugMaxTimeoutMs: setting(
      positiveInt,
      30_000,
      'A longer debug_trace* `timeout` is lowered to this: each traced transaction holds an EVM worker at most this long.',
    ),
    debugCacheBytes: setting(
      bytes,
      32 * MiB,
      'debug_trace* answers of stored blocks kept (by their JSON bytes), so asking again for a transaction costs no replay: a replay runs at ~6 Mgas/s, seconds for a full block.',
    ),
    debugMaxResultBytes: setting(
      bytes,
      64 * MiB,
      'One debug_trace* answer at most (its JSON): the struct logs of ~250,000 opcodes with stacks. Larger answers are refused with -32000, naming this setting; geth has no bound (its `limit` option only truncates).',
    ),
  },
  gasOracle: {
    blocks: setting(positiveInt, 20, "geth's `--gpo.blocks`."),
    percentile: setting(z.number().int().min(0).max(100), 60, "geth's `--gpo.percentile`."),
    samplesPerBlock: setting(positiveInt, 3, "geth's `sampleNumber`: the cheapest tips taken from each block."),
    ignorePriceWei: setting(nonNegativeInt, 2, "geth's `DefaultIgnorePrice`: tips below it are spam."),
    maxPriceWei: setting(positiveInt, 500_000_000_000, "geth's `DefaultMaxPrice` (500 gwei)."),
    defaultPriceWei: setting(nonNegativeInt, 1_000_000, "geth's starting suggestion, the miner's default minimum tip (0.001 gwei)."),
  },
  caches: {
    headerEntries: setting(positiveInt, 4096, 'Decoded headers kept (a few KiB each).'),
    blockEntries: setting(positiveInt, 256, 'Decoded blocks kept.'),
    receiptBytes: setting(bytes, 32 * MiB, 'Receipts kept, counted by their stored size, so a log scan over a few thousand blocks stays decoded.'),
    txHashesEntries: setting(positiveInt, 16_384, 'Transaction-hash lists kept (32 bytes a transaction).'),
    renderedLogsBytes: setting(
      nonNegativeInt,
      8 * MiB,
      'Logs eth_getLogs rendered, kept by block hash and position with their JSON text, by estimated size (0: off): pollers ask for the same recent blocks again and again, and rendering a log costs more than finding it.',
    ),
    renderedReceiptsBytes: setting(
      nonNegativeInt,
      4 * MiB,
      'Receipts eth_getTransactionReceipt and eth_getBlockReceipts rendered, kept by block hash and index with their JSON text, by estimated size (0: off): wallets poll the receipt of the transaction they sent, and rendering and serializing a receipt costs more than reading it.',
    ),
    renderedBlocksBytes: setting(
      nonNegativeInt,
      8 * MiB,
      'Blocks eth_getBlockByNumber and eth_getBlockByHash rendered (with transaction hashes or full transactions), kept by block hash with their JSON text, by estimated size (0: off): every poller asks for the head block, and rendering and serializing a block costs more than reading it.',
    ),
    bloomEntries: setting(positiveInt, 131_072, 'Canonical blocks whose bloom, hash and time a log scan keeps (~50 MiB).'),
    stateReadEntries: setting(positiveInt, 100_000, 'Account, slot and code reads kept, across all blocks.'),
    trieNodeEntries: setting(positiveInt, 200_000, 'Trie nodes kept by the shared read-only node cache.'),
  },
  starknet: {
    maxChunkSize: setting(positiveInt, 1024, "pathfinder's page size limit for starknet_getEvents (error 31 above it)."),
    maxKeyPositions: setting(positiveInt.max(16), 16, "pathfinder's key filter limit (error 34 above it); the event index stops at 16 positions."),
    blockCacheEntries: setting(positiveInt, 4096, 'Starknet blocks kept decoded for event pages (emptied when a followed upstream reorganises).'),
  },
  follow: {
    pollIntervalMs: setting(positiveInt, 250, 'How often an HTTP upstream is asked for its head: a quarter of a 1 s block time.'),
    relayedReceiptWaitMs: setting(
      nonNegativeInt,
      750,
      "How long eth_getTransactionReceipt of a transaction this node relayed waits, when the followed node has already mined it, for this node to execute that block: ethers keeps a null answer and may then wait for a next block that never comes (an automining node). A block is executed here within ~40 ms of the followed node's (p50, BENCHMARKS.md); 0: answer at once.",
    ),
    relayAccounts: setting(
      z.boolean(),
      true,
      "Relay eth_accounts, eth_sendTransaction and the eth_sign* methods to the followed node when it holds unlocked accounts (anvil, Hardhat, geth --dev), as a wallet or `cast send --unlocked` pointed at that node uses them; false: refuse them (-32004). The node's own answers and errors come back unchanged.",
    ),
    relayedTransactions: setting(
      positiveInt,
      10_000,
      'Transactions relayed in the last 10 minutes that this node remembers for that wait (about 100 bytes each); the oldest leave first.',
    ),
    requestTimeoutMs: setting(positiveInt, 10_000, 'An upstream request (or batch of blocks) not answered by then is retried.'),
    batchBlocks: setting(positiveInt, 32, 'Blocks asked for in one batch request while catching up.'),
    prefetchBatches: setting(positiveInt, 2, 'Batches fetched ahead of execution while catching up, so network latency overlaps execution (bounded memory).'),
    siblingSearchNibbles: setting(
      z.number().int().min(1).max(8),
      6,
      'An archive from block N whose upstream serves no debug_executionWitness: how deep (in nibbles) the sibling of a branch that a deletion collapses may lie for a key under it to be searched for (16^n keccak256 on average); deeper, following stops and asks for an upstream that serves the witness.',
    ),
    maxReorgDepth: setting(positiveInt, 128, 'A reorganisation deeper than this stops following with an error instead of rewriting that much history.'),
    retryMaxMs: setting(positiveInt, 30_000, 'Backoff after upstream failures doubles from 250 ms up to this.'),
    threadNice: setting(
      z.number().int().min(0).max(19),
      10,
      "Niceness of the follower's thread (Linux: per thread): executing new blocks gives way to requests when the CPU is busy.",
    ),
    healthMaxLagBlocks: setting(
      nonNegativeInt,
      5,
      '/health answers 503 when the upstream is more blocks ahead than this, so a load balancer routes around a lagging node.',
    ),
    healthMaxSilenceMs: setting(
      positiveInt,
      10_000,
      '/health answers 503 when no round with the upstream has succeeded for this long: the head may be stale and the lag unknown (a WebSocket upstream is asked every 2 s).',
      'MS',
    ),
  },
  import: {
    progressIntervalMs: setting(positiveInt, 1000, 'How often import (and reindex-traces) prints blocks/s, Mgas/s and ETA.'),
    trieNodeCacheEntries: setting(
      positiveInt,
      50_000,
      "Trie nodes the importer's state trie keeps between blocks (a few hundred bytes each): recent accounts and slots skip LevelDB. An archive from block N that follows keeps as many of the nodes it last wrote or fetched, which the checks of what the next blocks need fetched read.",
    ),
    evmFastPaths: setting(
      z.boolean(),
      true,
      "The importer's speed-ups over @ethereumjs/evm 10.1.3 (src/execution/evm/README.md): the call engine's copied interpreter entry points and faster MSTORE, jump analyses kept per contract code. false: execute blocks with the library as published, to check an upgrade or rule the speed-ups out; the roots are the same, a contract-heavy block costs up to twice the CPU (the real OP blocks' figures).",
    ),
    headerChecks: setting(
      z.enum(['auto', 'strict', 'lenient']),
      'auto',
      "Header rules of imported and followed blocks: `strict` refuses a block whose timestamp, difficulty, gas limit step, base fee or excess blob gas breaks geth's rules; `lenient` executes it with its own header values (development nodes break them by design) and logs the deviation; `auto` is strict on public chain ids (1, 11155111, 17000, 560048; the OP-stack chains 10, 8453, 130, 11155420, 84532, 1301) and lenient elsewhere. State root, receipts, bloom and gas used are verified in every mode.",
      'MODE',
    ),
  },
} as const;

type Sections = typeof SETTINGS;
/** The configuration: every setting with its value. */
export type Config = {
  -readonly [S in keyof Sections]: { -readonly [K in keyof Sections[S]]: Sections[S][K] extends Setting<infer T> ? T : never };
};

/** The configuration with every default. */
export function defaultConfig(): Config {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [section, entries] of Object.entries(SETTINGS)) {
    out[section] = {};
    for (const [key, s] of Object.entries(entries as Record<string, Setting>)) out[section][key] = s.default;
  }
  return out as Config;
}

/** One setting with its names in each source. */
export interface SettingName {
  section: string;
  key: string;
  setting: Setting;
  /** `transport.httpMaxBodyBytes` */
  path: string;
  /** `--transport.http-max-body-bytes`, `--gas-oracle.max-price-wei` (`--port` for server settings) */
  flag: string;
  /** `TRACENODE_TRANSPORT_HTTP_MAX_BODY_BYTES` (`TRACENODE_PORT` for server settings) */
  env: string;
}

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const screaming = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();

/** Every setting, with its file path, flag and environment variable. */
export function settingNames(): SettingName[] {
  const out: SettingName[] = [];
  for (const [section, entries] of Object.entries(SETTINGS)) {
    for (const [key, setting] of Object.entries(entries as Record<string, Setting>)) {
      const top = section === 'server';
      out.push({
        section,
        key,
        setting,
        path: `${section}.${key}`,
        flag: top ? `--${kebab(key)}` : `--${kebab(section)}.${kebab(key)}`,
        env: top ? `TRACENODE_${screaming(key)}` : `TRACENODE_${screaming(section)}_${screaming(key)}`,
      });
    }
  }
  return out;
}

/** The settings as a Markdown table (README's configuration section is this, pasted). */
export function renderSettingsTable(): string {
  const rows = settingNames().map((n) => {
    const d = n.setting.default;
    const shown = d === undefined ? '—' : typeof d === 'string' ? `\`${d}\`` : `${d}`;
    return `| \`${n.path}\` | \`${n.flag}\` | \`${n.env}\` | ${shown} | ${n.setting.reason} |`;
  });
  return ['| setting | flag | environment | default | why |', '|---|---|---|---|---|', ...rows].join('\n');
}
