/**
 * Memory under the two loads a careless or hostile client can apply (issue 20), measured as the
 * RSS of the tracenode process of the run:
 *
 * - A WebSocket client that sends and never reads: `messages` requests of a large answer (a full
 *   block) on one socket whose reading is paused. The server stops reading that socket past
 *   `transport.wsMaxInFlightMessages` and closes it (1008) once its unread answers pass
 *   `transport.wsMaxBufferedBytes`; RSS must stay bounded by those, not grow with the messages.
 * - A batch of 1,000 eth_getProof (the bench's storage-proof request): the answer's size, the time
 *   to it and the RSS peak while it is built; items past `transport.batchResponseMaxBytes` are
 *   answered -32003, as geth does, so the answer stays bounded.
 */
import WebSocket from 'ws';
import { httpPost, parseJson, requestBody, toBatch } from './jsonRpc.js';
import { round } from './names.js';
import { rssMiB, sleep } from './processes.js';

export interface MemoryChecks {
  unreadWebSocket: {
    messages: number;
    answerBytes: number;
    /** Bytes the client asked for: messages × answer size. */
    requestedMiB: number;
    restMiB: number;
    peakMiB: number;
    afterMiB: number;
    closeCode: number | undefined;
  };
  proofBatch: {
    items: number;
    keysEach: number;
    answerMiB: number;
    ms: number;
    /** Items answered with a proof of every key; the others got -32003 (transport.batchResponseMaxBytes). */
    proofs: number;
    limited: number;
    restMiB: number;
    peakMiB: number;
  };
}

export interface MemoryCheckInputs {
  pid: number;
  http: string;
  ws: string;
  /** A request whose answer is large (a full block). */
  bigAnswerBody: string;
  /** eth_getProof params of one batch item. */
  proofParams: unknown[];
  log: (line: string) => void;
}

/** Samples the RSS of `pid` every 100 ms until `stop()`; returns the peak. */
function peakSampler(pid: number): { stop: () => number } {
  let peak = rssMiB(pid) ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMiB(pid) ?? 0);
  }, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, rssMiB(pid) ?? 0);
    },
  };
}

async function unreadWebSocket(o: MemoryCheckInputs, messages: number): Promise<MemoryChecks['unreadWebSocket']> {
  const answerBytes = (await httpPost(o.http, o.bigAnswerBody)).text.length;
  const restMiB = rssMiB(o.pid) ?? 0;
  const sampler = peakSampler(o.pid);
  const ws = new WebSocket(o.ws);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  // Stop reading: the answers pile up in the kernel's buffers, then in the server's.
  (ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
  for (let i = 0; i < messages && ws.readyState === WebSocket.OPEN; i++) {
    ws.send(o.bigAnswerBody.replace('"id":1', `"id":${i + 1}`));
    if (i % 1000 === 999) await sleep(10);
  }
  await sleep(3000);
  (ws as unknown as { _socket: { resume(): void } })._socket.resume();
  const closeCode = await Promise.race([closed, sleep(10_000).then(() => undefined)]);
  if (ws.readyState !== WebSocket.CLOSED) ws.terminate();
  const peakMiB = sampler.stop();
  await sleep(1000);
  return {
    messages,
    answerBytes,
    requestedMiB: round((messages * answerBytes) / 2 ** 20, 1),
    restMiB: round(restMiB, 1),
    peakMiB: round(peakMiB, 1),
    afterMiB: round(rssMiB(o.pid) ?? 0, 1),
    closeCode,
  };
}

async function proofBatch(o: MemoryCheckInputs, items: number): Promise<MemoryChecks['proofBatch']> {
  const body = `[${Array.from({ length: items }, (_, i) => requestBody('eth_getProof', o.proofParams).replace('"id":1', `"id":${i + 1}`)).join(',')}]`;
  const restMiB = rssMiB(o.pid) ?? 0;
  const sampler = peakSampler(o.pid);
  const t0 = performance.now();
  const { text } = await httpPost(o.http, body, {}, 120_000);
  const ms = performance.now() - t0;
  const peakMiB = sampler.stop();
  const answers = toBatch(parseJson(text)) ?? [];
  const keysEach = Array.isArray(o.proofParams[1]) ? o.proofParams[1].length : 0;
  const proofs = answers.filter((a) => {
    const storage = (a.result as { storageProof?: unknown[] } | undefined)?.storageProof;
    return Array.isArray(storage) && storage.length === keysEach;
  }).length;
  const limited = answers.filter((a) => a.error?.code === -32003).length;
  return {
    items,
    keysEach,
    answerMiB: round(text.length / 2 ** 20, 1),
    ms: round(ms, 1),
    proofs,
    limited,
    restMiB: round(restMiB, 1),
    peakMiB: round(peakMiB, 1),
  };
}

export async function measureMemoryChecks(o: MemoryCheckInputs, quick: boolean): Promise<MemoryChecks> {
  const unread = await unreadWebSocket(o, quick ? 5_000 : 30_000);
  o.log(
    `memory: a WebSocket client that never reads, ${unread.messages} answers of ${unread.answerBytes} bytes (${unread.requestedMiB} MiB asked): RSS ${unread.restMiB} → peak ${unread.peakMiB} MiB, ${unread.afterMiB} after; closed with ${unread.closeCode ?? 'nothing'}`,
  );
  const proofs = await proofBatch(o, 1000);
  o.log(
    `memory: a batch of ${proofs.items} eth_getProof (${proofs.keysEach} keys each): ${proofs.answerMiB} MiB in ${proofs.ms} ms (${proofs.proofs} proofs, ${proofs.limited} past the batch answer limit); RSS ${proofs.restMiB} → peak ${proofs.peakMiB} MiB`,
  );
  return { unreadWebSocket: unread, proofBatch: proofs };
}
