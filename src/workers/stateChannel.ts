import { randomUUID } from 'node:crypto';
import { BroadcastChannel, threadId } from 'node:worker_threads';
import { RemoteStateError, type RemoteStateFailure, type StateProof, type StateSource } from '../state/stateSource.js';

/**
 * The state source of the EVM workers of an archive that starts at block N: a worker's eth_call
 * that meets a node its datadir does not hold asks the serving thread, which holds the one
 * connection to the followed node, its metrics and the sharing of fetches of one key
 * (`follow/upstreamState.ts`). The worker checks and stores what comes back itself
 * (`state/remoteState.ts`), in the database every thread shares.
 *
 * They talk over a BroadcastChannel of a name made for the network, beside the pool's job
 * protocol (`pool.ts`, `jobLoop.ts`), which it leaves alone: requests carry the asking thread's
 * id and answers name it. Workers also report their state reads now and then (local and remote),
 * so that the local hit rate counts eth_call's reads too.
 */

/** A worker's state reads since it started: read-cache lookups and those that needed the upstream. */
export interface WorkerStateReads {
  lookups: number;
  remote: number;
}

type Request =
  | { type: 'proof'; id: number; from: number; address: Uint8Array; slots: Uint8Array[]; stateRoot: Uint8Array }
  | { type: 'code'; id: number; from: number; address: Uint8Array; stateRoot: Uint8Array }
  | { type: 'reads'; from: number; reads: WorkerStateReads };
type Answer = { type: 'answer'; id: number; to: number } & ({ ok: true; value: unknown } | { ok: false; kind: RemoteStateFailure; message: string });

/** How often a worker reports its reads (when they changed). */
const REPORT_MS = 2000;

/** A channel name of its own for one network's workers. */
export function stateChannelName(): string {
  return `tracenode-state:${randomUUID()}`;
}

/**
 * In the serving thread: answers the workers' requests on channel `name` with `source`; `onReads`
 * hears each worker's reads. `close()` stops.
 */
export function serveStateChannel(name: string, source: StateSource, onReads: (worker: number, reads: WorkerStateReads) => void): { close(): void } {
  const channel = new BroadcastChannel(name);
  channel.unref();
  const answer = (request: Exclude<Request, { type: 'reads' }>, outcome: Promise<unknown>) => {
    outcome.then(
      (value) => channel.postMessage({ type: 'answer', id: request.id, to: request.from, ok: true, value } satisfies Answer),
      (err: unknown) => {
        const kind = err instanceof RemoteStateError ? err.kind : 'unreachable';
        channel.postMessage({ type: 'answer', id: request.id, to: request.from, ok: false, kind, message: (err as Error).message } satisfies Answer);
      },
    );
  };
  channel.onmessage = (event) => {
    const request = (event as { data: Request }).data;
    if (request.type === 'reads') onReads(request.from, request.reads);
    else if (request.type === 'proof') answer(request, source.proveAccount(request.address, request.slots, request.stateRoot));
    else if (request.type === 'code') answer(request, source.code(request.address, request.stateRoot));
  };
  return { close: () => channel.close() };
}

/** In an EVM worker: the state source that asks the serving thread on channel `name`. */
export class ChannelStateSource implements StateSource {
  private readonly channel: BroadcastChannel;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  private reported = '';

  constructor(name: string) {
    this.channel = new BroadcastChannel(name);
    this.channel.unref();
    this.channel.onmessage = (event) => {
      const answer = (event as { data: Answer | Request }).data;
      if (answer.type !== 'answer' || answer.to !== threadId) return;
      const waiter = this.waiting.get(answer.id);
      if (!waiter) return;
      this.waiting.delete(answer.id);
      if (answer.ok) waiter.resolve(answer.value);
      else waiter.reject(new RemoteStateError(answer.kind, answer.message));
    };
  }

  proveAccount(address: Uint8Array, slots: readonly Uint8Array[], stateRoot: Uint8Array): Promise<StateProof> {
    return this.ask({ type: 'proof', id: this.nextId++, from: threadId, address, slots: [...slots], stateRoot }) as Promise<StateProof>;
  }

  code(address: Uint8Array, stateRoot: Uint8Array): Promise<Uint8Array> {
    return this.ask({ type: 'code', id: this.nextId++, from: threadId, address, stateRoot }) as Promise<Uint8Array>;
  }

  /** Reports `reads()` every {@link REPORT_MS} while they change. */
  reportReads(reads: () => WorkerStateReads): void {
    const timer = setInterval(() => {
      const now = reads();
      const text = `${now.lookups}/${now.remote}`;
      if (text === this.reported) return;
      this.reported = text;
      this.channel.postMessage({ type: 'reads', from: threadId, reads: now } satisfies Request);
    }, REPORT_MS);
    timer.unref();
  }

  private ask(request: Exclude<Request, { type: 'reads' }>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.waiting.set(request.id, { resolve, reject });
      this.channel.postMessage(request);
    });
  }
}
