import { performance } from 'node:perf_hooks';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { threadCpuSeconds } from '../proc/threadCpu.js';

/**
 * The operator's view of the node, in Prometheus text format (prom-client): requests by network,
 * method, transport and outcome, latency per method, requests in flight, refusals by reason,
 * per-key counts labelled with the key's non-secret id (never the key), the head block of each
 * network, WebSocket connections and slow-consumer closes, and the process' own metrics.
 *
 * The per-key counts of the current UTC day also feed `tracenode keys usage`.
 *
 * The per-call metrics are counted in plain numbers, one record per (network, transport, key,
 * method, outcome), and handed to prom-client's registry when it is scraped: prom-client hashes
 * a metric's labels on every `inc` or `observe`, which costs more per request than the rest of a
 * cached state read.
 */

/** Why a request or call was refused before it ran. */
export type RefusalReason = 'auth' | 'policy' | 'rate' | 'quota' | 'concurrency' | 'body' | 'transport';

/** Latency buckets (seconds): cached reads take tens of µs, eth_call and traces up to the 5 s deadline. */
const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One kind of call: its labels and what was counted of it. */
interface CallRecord {
  readonly network: string;
  readonly transport: string;
  readonly keyId: string;
  readonly method: string;
  readonly outcome: string;
  count: number;
  /** Sum of durations, seconds. */
  seconds: number;
  /** Observations per latency bucket (not cumulative); the last slot is +Inf. */
  readonly buckets: number[];
  /** Calls of this kind since the day began (UTC), for the usage report. */
  today: number;
}

/** A metric for prom-client's registry whose samples come from `values()` at scrape time. */
function collected(
  name: string,
  help: string,
  type: 'counter' | 'gauge' | 'histogram',
  values: () => Array<{ labels: Record<string, string | number>; value: number; metricName?: string }>,
) {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum' as const,
    get: async () => ({ name, help, type, aggregator: 'sum' as const, values: values() }),
    reset() {},
  };
  return metric;
}

/** What the metrics read from the networks when scraped. */
export interface MetricSources {
  /** Each network's head block number. */
  heads: () => Promise<ReadonlyArray<{ network: string; number: number | undefined }>>;
  /** Each network's caches. */
  caches?: () => ReadonlyArray<{ network: string; cache: string; hits: number; misses: number; entries: number }>;
  /** Each network's EVM worker pool. */
  workers?: () => ReadonlyArray<{ network: string } & EvmPoolStats>;
  /** Each network's live eth_subscribe subscriptions and installed filters. */
  subscriptions?: () => ReadonlyArray<{ network: string; subscriptions: number; filters: number }>;
  /** The shared limit store (`--redis`), when configured. */
  limitStore?: () => { up: boolean; fallbacks: number } | undefined;
  /** Header rules broken by followed blocks under lenient checks, by network and rule. */
  headerDeviations?: () => ReadonlyArray<{ network: string; rule: string; count: number }>;
  /** The state networks that start at block N fetched from their followed node. */
  remoteState?: () => ReadonlyArray<{ network: string } & RemoteStateStats>;
}

/**
 * What an archive that starts at block N fetched from its followed node since start: by kind
 * (`proof`: eth_getProof, `code`: eth_getCode) the fetches answered, those that failed, the bytes
 * of proof nodes and code received and the seconds spent waiting; and its state reads (read-cache
 * lookups of the serving thread and the EVM workers) with those that needed the followed node.
 */
export interface RemoteStateStats {
  fetches: Record<string, { fetches: number; failures: number; bytes: number; seconds: number }>;
  reads: { lookups: number; remote: number };
  /**
   * Following: the blocks executed on fetched state and the upstream calls made for it, by the
   * source that fetched it (`witness`, `prestate`, `onMiss`), and the siblings of collapsed
   * branches fetched through a searched key.
   */
  follow?: { blocks: Record<string, number>; calls: Record<string, number>; siblings: number };
}

/** An EVM worker pool's state and its jobs since start, by how they ended. */
export interface EvmPoolStats {
  workers: number;
  busy: number;
  queued: number;
  jobs: Record<'answered' | 'busy' | 'aborted' | 'crashed' | 'stuck', number>;
  /** CPU seconds of the workers' threads (`workers/pool.ts` PoolStats.cpuSeconds). */
  cpuSeconds?: number;
}

/** The node's metrics and the per-key usage of the current day. */
export class NodeMetrics {
  readonly registry = new Registry();
  private readonly refusals: Counter<'reason'>;
  private readonly wsConnections: Gauge;
  private readonly wsClosed: Counter<'reason'>;
  private readonly calls = new Map<string, CallRecord>();
  private readonly inFlight = new Map<string, number>([
    ['http', 0],
    ['ws', 0],
  ]);
  /** The UTC day the `today` counts belong to, and when it ends (ms). */
  private day = '';
  private dayEnds = 0;

  constructor(
    sources: MetricSources,
    private readonly now: () => number = Date.now,
  ) {
    const { heads } = sources;
    const registers = [this.registry];
    const records = () => [...this.calls.values()];
    const register = (m: ReturnType<typeof collected>) => this.registry.registerMetric(m as never);
    callMetrics(records, this.inFlight, register);
    networkMetrics(sources, register);
    this.refusals = new Counter({
      name: 'tracenode_refusals_total',
      help: 'Requests or calls refused before running: auth, policy (allowlists), rate, quota, concurrency, body (too large), transport',
      labelNames: ['reason'],
      registers,
    });
    this.wsConnections = new Gauge({ name: 'tracenode_websocket_connections', help: 'Open WebSocket connections', registers });
    this.wsClosed = new Counter({
      name: 'tracenode_websocket_closed_total',
      help: 'WebSocket connections closed by the server, by reason (slow_consumer: answers left unread past the limit; notification_backlog: subscription notifications left unread past the limit; ping_timeout: no answer to a ping; shutdown: 1001 once its messages were answered)',
      labelNames: ['reason'],
      registers,
    });
    new Gauge({
      name: 'tracenode_head_block',
      help: 'The head block number of each network',
      labelNames: ['network'],
      registers,
      async collect() {
        for (const { network, number } of await heads()) if (number !== undefined) this.set({ network }, number);
      },
    });
    collectDefaultMetrics({ register: this.registry, prefix: 'tracenode_' });
    // Gauges whose names end in _total, which Prometheus reserves for counters (promtool flags
    // them); their per-type siblings (`…_active_handles{type}`) stay.
    for (const name of ['active_handles_total', 'active_requests_total', 'active_resources_total'])
      this.registry.removeSingleMetric(`tracenode_nodejs_${name}`);
  }

  /**
   * One call answered (`outcome`: 'ok' or the JSON-RPC error code). The records are bounded by
   * the keys times the methods the networks serve: the pipeline labels any other method
   * `(unknown)`.
   */
  call(network: string, transport: string, keyId: string, method: string, outcome: string, seconds: number): void {
    const id = `${network}\u0000${transport}\u0000${keyId}\u0000${method}\u0000${outcome}`;
    let r = this.calls.get(id);
    if (r === undefined) {
      r = { network, transport, keyId, method, outcome, count: 0, seconds: 0, buckets: new Array(LATENCY_BUCKETS.length + 1).fill(0), today: 0 };
      this.calls.set(id, r);
    }
    r.count++;
    r.seconds += seconds;
    let b = 0;
    while (b < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[b]) b++;
    r.buckets[b]++;
    const now = this.now();
    if (now >= this.dayEnds) this.newDay(now);
    r.today++;
  }

  private newDay(now: number): void {
    const day = new Date(now).toISOString().slice(0, 10);
    this.day = day;
    this.dayEnds = Date.parse(`${day}T00:00:00Z`) + 86_400_000;
    for (const r of this.calls.values()) r.today = 0;
  }

  refused(reason: RefusalReason): void {
    this.refusals.inc({ reason });
  }

  enter(transport: string): void {
    this.inFlight.set(transport, (this.inFlight.get(transport) ?? 0) + 1);
  }

  leave(transport: string): void {
    this.inFlight.set(transport, (this.inFlight.get(transport) ?? 0) - 1);
  }

  wsOpened(): void {
    this.wsConnections.inc();
  }

  wsClosedBy(reason: string | undefined): void {
    this.wsConnections.dec();
    if (reason !== undefined) this.wsClosed.inc({ reason });
  }

  /** Calls per key id and method since midnight UTC. */
  usageToday(): { day: string; keys: Record<string, Record<string, number>> } {
    const now = this.now();
    if (now >= this.dayEnds) this.newDay(now);
    const keys: Record<string, Record<string, number>> = {};
    for (const r of this.calls.values()) {
      if (r.today === 0) continue;
      const methods = keys[r.keyId] ?? {};
      methods[r.method] = (methods[r.method] ?? 0) + r.today;
      keys[r.keyId] = methods;
    }
    return { day: this.day, keys };
  }

  /** The Prometheus text exposition. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** The metrics of the calls answered (`records`) and of the requests in progress (`inFlight`). */
function callMetrics(records: () => CallRecord[], inFlight: ReadonlyMap<string, number>, register: (m: ReturnType<typeof collected>) => void): void {
  register(
    collected(
      'tracenode_requests_total',
      'JSON-RPC calls answered, by network, method, transport and outcome (ok, or the JSON-RPC error code)',
      'counter',
      () => {
        const sums = new Map<string, { labels: Record<string, string>; value: number }>();
        for (const r of records()) {
          const id = `${r.network}\u0000${r.method}\u0000${r.transport}\u0000${r.outcome}`;
          const entry = sums.get(id) ?? { labels: { network: r.network, method: r.method, transport: r.transport, outcome: r.outcome }, value: 0 };
          entry.value += r.count;
          sums.set(id, entry);
        }
        return [...sums.values()];
      },
    ),
  );
  register(
    collected('tracenode_request_duration_seconds', 'Time from a call entering the pipeline to its answer, by network and method', 'histogram', () => {
      const byMethod = new Map<string, { network: string; method: string; buckets: number[]; seconds: number; count: number }>();
      for (const r of records()) {
        const id = `${r.network}\u0000${r.method}`;
        let h = byMethod.get(id);
        if (h === undefined) {
          h = { network: r.network, method: r.method, buckets: new Array(LATENCY_BUCKETS.length + 1).fill(0), seconds: 0, count: 0 };
          byMethod.set(id, h);
        }
        for (let i = 0; i < h.buckets.length; i++) h.buckets[i] += r.buckets[i];
        h.seconds += r.seconds;
        h.count += r.count;
      }
      const out: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
      for (const h of byMethod.values()) {
        let cumulative = 0;
        for (let i = 0; i <= LATENCY_BUCKETS.length; i++) {
          cumulative += h.buckets[i];
          const le = i < LATENCY_BUCKETS.length ? LATENCY_BUCKETS[i] : '+Inf';
          out.push({ labels: { network: h.network, method: h.method, le }, value: cumulative, metricName: 'tracenode_request_duration_seconds_bucket' });
        }
        out.push({ labels: { network: h.network, method: h.method }, value: h.seconds, metricName: 'tracenode_request_duration_seconds_sum' });
        out.push({ labels: { network: h.network, method: h.method }, value: h.count, metricName: 'tracenode_request_duration_seconds_count' });
      }
      return out;
    }),
  );
  register(
    collected('tracenode_key_requests_total', 'JSON-RPC calls per API key (by its non-secret id) and method', 'counter', () => {
      const sums = new Map<string, { labels: Record<string, string>; value: number }>();
      for (const r of records()) {
        const id = `${r.keyId}\u0000${r.method}`;
        const entry = sums.get(id) ?? { labels: { key_id: r.keyId, method: r.method }, value: 0 };
        entry.value += r.count;
        sums.set(id, entry);
      }
      return [...sums.values()];
    }),
  );
  register(
    collected('tracenode_requests_in_flight', 'HTTP requests and WebSocket messages in progress', 'gauge', () =>
      [...inFlight].map(([transport, value]) => ({ labels: { transport }, value })),
    ),
  );
}

/** The metrics each network reports (caches, EVM workers, subscriptions, header deviations) and the shared limit store's. */
function networkMetrics(sources: MetricSources, register: (m: ReturnType<typeof collected>) => void): void {
  const { caches = () => [], workers = () => [], subscriptions = () => [] } = sources;
  // The caches of each network: lookups that hit and missed, entries held, and the hit ratio.
  register(
    collected('tracenode_cache_hits_total', 'Cache lookups that found their entry, by network and cache', 'counter', () =>
      caches().map((c) => ({ labels: { network: c.network, cache: c.cache }, value: c.hits })),
    ),
  );
  register(
    collected('tracenode_cache_misses_total', 'Cache lookups that did not find their entry, by network and cache', 'counter', () =>
      caches().map((c) => ({ labels: { network: c.network, cache: c.cache }, value: c.misses })),
    ),
  );
  register(
    collected('tracenode_cache_entries', 'Entries a cache holds, by network and cache', 'gauge', () =>
      caches().map((c) => ({ labels: { network: c.network, cache: c.cache }, value: c.entries })),
    ),
  );
  register(
    collected('tracenode_cache_hit_ratio', 'Hits over lookups since start, by network and cache (0 before the first lookup)', 'gauge', () =>
      caches().map((c) => ({ labels: { network: c.network, cache: c.cache }, value: c.hits + c.misses > 0 ? c.hits / (c.hits + c.misses) : 0 })),
    ),
  );
  // The EVM workers of each network: started, busy, jobs waiting, and jobs by how they ended.
  register(
    collected('tracenode_evm_workers', 'EVM worker threads started, by network (at most execution.evmWorkers)', 'gauge', () =>
      workers().map((w) => ({ labels: { network: w.network }, value: w.workers })),
    ),
  );
  register(
    collected('tracenode_evm_workers_busy', 'EVM worker threads running a job, by network', 'gauge', () =>
      workers().map((w) => ({ labels: { network: w.network }, value: w.busy })),
    ),
  );
  register(
    collected('tracenode_evm_queue_length', 'EVM jobs waiting for a worker, by network (at most execution.evmQueueMax)', 'gauge', () =>
      workers().map((w) => ({ labels: { network: w.network }, value: w.queued })),
    ),
  );
  register(
    collected(
      'tracenode_evm_jobs_total',
      'EVM jobs (eth_call, eth_estimateGas, trace replays) by network and outcome: answered by a worker, refused as the queue was full (busy), dropped from the queue as the client went away (aborted), lost with a crashed worker (crashed), or lost with a worker replaced past its deadline (stuck)',
      'counter',
      () => workers().flatMap((w) => Object.entries(w.jobs).map(([outcome, value]) => ({ labels: { network: w.network, outcome }, value }))),
    ),
  );
  register(
    collected(
      'tracenode_evm_worker_cpu_seconds_total',
      "CPU seconds of the network's EVM worker threads (Linux's /proc; elsewhere their event loops' active time): with tracenode_serving_thread_cpu_seconds_total and tracenode_process_cpu_seconds_total, where the process's CPU goes",
      'counter',
      () => workers().flatMap((w) => (w.cpuSeconds === undefined ? [] : [{ labels: { network: w.network }, value: w.cpuSeconds }])),
    ),
  );
  register(
    collected(
      'tracenode_serving_thread_cpu_seconds_total',
      "CPU seconds of the thread that serves clients (Linux's /proc; elsewhere its event loop's active time): near one a second, that thread is what limits the node",
      'counter',
      () => [{ labels: {}, value: threadCpuSeconds() ?? performance.eventLoopUtilization().active / 1000 }],
    ),
  );
  register(
    collected(
      'tracenode_subscriptions',
      'Live eth_subscribe subscriptions (kind="subscription") and installed filters (kind="filter"), by network',
      'gauge',
      () =>
        subscriptions().flatMap((n) => [
          { labels: { network: n.network, kind: 'subscription' }, value: n.subscriptions },
          { labels: { network: n.network, kind: 'filter' }, value: n.filters },
        ]),
    ),
  );
  const headerDeviations = sources.headerDeviations ?? (() => []);
  register(
    collected(
      'tracenode_follow_header_deviations_total',
      'Followed blocks that broke a header rule which lenient header checks let through (import.headerChecks), by network and rule: timestamp, difficulty, gasLimit, baseFee, excessBlobGas',
      'counter',
      () => headerDeviations().map((d) => ({ labels: { network: d.network, rule: d.rule }, value: d.count })),
    ),
  );
  remoteStateMetrics(sources.remoteState ?? (() => []), register);
  const limitStore = sources.limitStore;
  if (limitStore !== undefined) {
    register(
      collected('tracenode_redis_up', 'Whether the shared limit store (--redis) answers: 1, or 0 while calls are counted in this process', 'gauge', () => [
        { labels: {}, value: limitStore()?.up ? 1 : 0 },
      ]),
    );
    register(
      collected(
        'tracenode_limit_local_fallback_total',
        'Calls whose rate and quota were counted in this process because the shared limit store (--redis) was unreachable',
        'counter',
        () => [{ labels: {}, value: limitStore()?.fallbacks ?? 0 }],
      ),
    );
  }
}

/** What archives that start at block N fetched from their followed node, and how many of their state reads were local. */
function remoteStateMetrics(remote: NonNullable<MetricSources['remoteState']>, register: (m: ReturnType<typeof collected>) => void): void {
  const perKind = (field: 'fetches' | 'failures' | 'bytes' | 'seconds') => () =>
    remote().flatMap((n) => Object.entries(n.fetches).map(([kind, f]) => ({ labels: { network: n.network, kind }, value: f[field] })));
  const byKind = 'by network and kind (proof: eth_getProof, code: eth_getCode)';
  register(
    collected(
      'tracenode_remote_state_fetches_total',
      `State fetched from the followed node by an archive from block N, ${byKind}`,
      'counter',
      perKind('fetches'),
    ),
  );
  register(
    collected(
      'tracenode_remote_state_fetch_failures_total',
      `State fetches the followed node did not answer (unreachable, an error, garbage), ${byKind}`,
      'counter',
      perKind('failures'),
    ),
  );
  register(
    collected(
      'tracenode_remote_state_fetch_bytes_total',
      `Bytes of proof nodes and code fetched from the followed node, ${byKind}`,
      'counter',
      perKind('bytes'),
    ),
  );
  register(
    collected('tracenode_remote_state_fetch_seconds_total', `Seconds spent waiting for the followed node's state, ${byKind}`, 'counter', perKind('seconds')),
  );
  const bySource = (field: 'blocks' | 'calls') => () =>
    remote().flatMap((n) => Object.entries(n.follow?.[field] ?? {}).map(([source, value]) => ({ labels: { network: n.network, source }, value })));
  register(
    collected(
      'tracenode_follow_state_blocks_total',
      'Followed blocks of an archive from block N, by network and the source their state came from: witness (debug_executionWitness), prestate (a prestateTracer trace and batched eth_getProof), onMiss (fetched as the block read it)',
      'counter',
      bySource('blocks'),
    ),
  );
  register(
    collected(
      'tracenode_follow_state_requests_total',
      'JSON-RPC calls to the followed node for the state of followed blocks, by network and source (fetch on miss during execution: onMiss)',
      'counter',
      bySource('calls'),
    ),
  );
  register(
    collected(
      'tracenode_follow_state_siblings_total',
      'Siblings of branches that a deletion collapsed, fetched through the proof of a searched key (an upstream without debug_executionWitness), by network',
      'counter',
      () => remote().map((n) => ({ labels: { network: n.network }, value: n.follow?.siblings ?? 0 })),
    ),
  );
  register(
    collected(
      'tracenode_state_reads_total',
      'State reads (accounts, slots, code) of an archive from block N, by network and where they were answered: local (held, or the read cache), remote (fetched from the followed node first)',
      'counter',
      () =>
        remote().flatMap((n) => [
          { labels: { network: n.network, source: 'local' }, value: Math.max(0, n.reads.lookups - n.reads.remote) },
          { labels: { network: n.network, source: 'remote' }, value: n.reads.remote },
        ]),
    ),
  );
  register(
    collected(
      'tracenode_state_local_hit_ratio',
      'State reads of an archive from block N answered without the followed node, over all its state reads (0 before the first)',
      'gauge',
      () => remote().map((n) => ({ labels: { network: n.network }, value: n.reads.lookups > 0 ? 1 - n.reads.remote / n.reads.lookups : 0 })),
    ),
  );
}
