import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The operator's view of the node, in Prometheus text format (prom-client): requests by network,
 * method, transport and outcome, latency per method, requests in flight, refusals by reason,
 * per-key counts labelled with the key's non-secret id (never the key), the head block of each
 * network, WebSocket connections and slow-consumer closes, and the process' own metrics.
 *
 * The per-key counts of the current UTC day also feed `tracenode keys usage`.
 */

/** Why a request or call was refused before it ran. */
export type RefusalReason = 'auth' | 'policy' | 'rate' | 'quota' | 'concurrency' | 'body' | 'transport';

/** Latency buckets (seconds): cached reads take tens of µs, eth_call and traces up to the 5 s deadline. */
const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The node's metrics and the per-key usage of the current day. */
export class NodeMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'network' | 'method' | 'transport' | 'outcome'>;
  private readonly latency: Histogram<'network' | 'method'>;
  private readonly inFlight: Gauge<'transport'>;
  private readonly refusals: Counter<'reason'>;
  private readonly keyRequests: Counter<'key_id' | 'method'>;
  private readonly wsConnections: Gauge;
  private readonly wsClosed: Counter<'reason'>;
  /** key id → method → calls today (UTC), for `tracenode keys usage`. */
  private today = new Map<string, Map<string, number>>();
  private day = '';

  constructor(
    heads: () => Promise<ReadonlyArray<{ network: string; number: number | undefined }>>,
    private readonly now: () => number = Date.now,
  ) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'tracenode_requests_total',
      help: 'JSON-RPC calls answered, by network, method, transport and outcome (ok, or the JSON-RPC error code)',
      labelNames: ['network', 'method', 'transport', 'outcome'],
      registers,
    });
    this.latency = new Histogram({
      name: 'tracenode_request_duration_seconds',
      help: 'Time from a call entering the pipeline to its answer, by network and method',
      labelNames: ['network', 'method'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.inFlight = new Gauge({
      name: 'tracenode_requests_in_flight',
      help: 'HTTP requests and WebSocket messages in progress',
      labelNames: ['transport'],
      registers,
    });
    this.refusals = new Counter({
      name: 'tracenode_refusals_total',
      help: 'Requests or calls refused before running: auth, policy (allowlists), rate, quota, concurrency, body (too large), transport',
      labelNames: ['reason'],
      registers,
    });
    this.keyRequests = new Counter({
      name: 'tracenode_key_requests_total',
      help: 'JSON-RPC calls per API key (by its non-secret id) and method',
      labelNames: ['key_id', 'method'],
      registers,
    });
    this.wsConnections = new Gauge({ name: 'tracenode_websocket_connections', help: 'Open WebSocket connections', registers });
    this.wsClosed = new Counter({
      name: 'tracenode_websocket_closed_total',
      help: 'WebSocket connections closed by the server, by reason (slow_consumer: answers left unread past the limit)',
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

  /** One call answered (`outcome`: 'ok' or the JSON-RPC error code). */
  call(network: string, transport: string, keyId: string, method: string, outcome: string, seconds: number): void {
    this.requests.inc({ network, method, transport, outcome });
    this.latency.observe({ network, method }, seconds);
    this.keyRequests.inc({ key_id: keyId, method });
    const day = new Date(this.now()).toISOString().slice(0, 10);
    if (day !== this.day) {
      this.day = day;
      this.today = new Map();
    }
    let methods = this.today.get(keyId);
    if (methods === undefined) {
      methods = new Map();
      this.today.set(keyId, methods);
    }
    methods.set(method, (methods.get(method) ?? 0) + 1);
  }

  refused(reason: RefusalReason): void {
    this.refusals.inc({ reason });
  }

  enter(transport: string): void {
    this.inFlight.inc({ transport });
  }

  leave(transport: string): void {
    this.inFlight.dec({ transport });
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
    const keys: Record<string, Record<string, number>> = {};
    for (const [id, methods] of this.today) keys[id] = Object.fromEntries(methods);
    return { day: this.day || new Date(this.now()).toISOString().slice(0, 10), keys };
  }

  /** The Prometheus text exposition. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
