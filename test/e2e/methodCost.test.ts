import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKeysFile } from '../../src/pipeline/keys.js';
import type { RefusalReason } from '../../src/pipeline/metrics.js';
import { createMethodTable, type MethodDefinition } from '../../src/rpc/method.js';
import { connect, rawHttp, type StartedServer, startServer, TRANSPORTS } from '../helpers/rpcClient.js';
import { toyNetwork } from '../helpers/toyMethods.js';

/**
 * The pipeline reads a method's cost from its declaration in the table, not from its name: a
 * key's `maxConcurrentHeavy` caps every method declared heavy, whatever it is called, and not a
 * method named `eth_call` that declares nothing. Each refusal is counted in
 * `tracenode_refusals_total` under its own reason and named in the message's access line.
 */

/** `test_hold` calls in progress, each released by calling its function. */
const holds: Array<() => void> = [];
let entered: (() => void) | undefined;
/** Resolves when the next `test_hold` call has entered its handler (so holds a heavy slot). */
const nextEntry = () =>
  new Promise<void>((resolve) => {
    entered = resolve;
  });

const methods = createMethodTable<unknown>([
  {
    name: 'test_hold',
    cost: 'heavy',
    async call() {
      entered?.();
      await new Promise<void>((resolve) => holds.push(resolve));
      return 'held';
    },
  },
  { name: 'test_crunch', cost: 'heavy', evm: true, call: async () => 'crunched' },
  // Named as a heavy method is, declaring nothing: cheap.
  { name: 'eth_call', call: async () => '0x' } satisfies MethodDefinition<unknown>,
  { name: 'test_echo', call: async (_ctx, params) => params ?? null },
]);

const KEYS = `
keys:
  - key: heavy-key
    maxConcurrentHeavy: 1
  - key: rate-key
    rateLimit: { perSecond: 1, burst: 1 }
  - key: quota-key
    dailyQuota: 1
  - key: method-key
    allow: { methods: [test_echo] }
`;

const lines: string[] = [];
const logger = pino(
  { level: 'info' },
  new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  }),
);

let server: StartedServer;
beforeAll(async () => {
  server = await startServer({ networks: [toyNetwork({ methods })], policies: parseKeysFile(KEYS, 'keys.yaml'), logger });
});
afterAll(() => server?.close());

const CONCURRENCY_REFUSAL = {
  code: -32005,
  message: 'project ID concurrent request limit exceeded',
  data: { see: 'docs/operators.md#limits', current_concurrent: 1, allowed_concurrent: 1, backoff_seconds: 1 },
};

/** Holds the key's one heavy slot with a `test_hold` call; returns its answer's promise and how to end it. */
async function holdSlot(call: (method: string) => Promise<unknown>): Promise<{ answer: Promise<unknown>; release: () => void }> {
  const inside = nextEntry();
  const answer = call('test_hold');
  await inside;
  return { answer, release: () => holds.shift()?.() };
}

for (const transport of TRANSPORTS) {
  describe(`heavy calls are what methods declare [${transport}]`, () => {
    it('past the cap, every method declared heavy is refused whatever its name; eth_call declaring nothing is not', async () => {
      const client = await connect(transport, server.url, 'heavy-key');
      try {
        const held = await holdSlot((m) => client.call(m));
        const [again, other, named, light] = await Promise.all([
          client.call('test_hold'),
          client.call('test_crunch'),
          client.call('eth_call', [{}]),
          client.call('test_echo', [1]),
        ]);
        expect(again.error).toEqual(CONCURRENCY_REFUSAL);
        expect(other.error).toEqual(CONCURRENCY_REFUSAL);
        expect(named.result).toBe('0x');
        expect(light.result).toEqual([1]);
        held.release();
        expect(((await held.answer) as { result: unknown }).result).toBe('held');
        expect((await client.call('test_crunch')).result).toBe('crunched');
      } finally {
        await client.close();
      }
    });
  });
}

/** `tracenode_refusals_total{reason}` now. */
async function refusals(reason: RefusalReason): Promise<number> {
  const text = await server.server.metrics.render();
  const line = text.split('\n').find((l) => l.startsWith(`tracenode_refusals_total{reason="${reason}"}`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const post = (key: string, method: string) =>
  rawHttp(`${server.url}/v3/${key}`, { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method }) });

/** Spends the key's one call of its window or day; nothing to end afterwards. */
async function spend(key: string): Promise<() => Promise<unknown>> {
  expect((await post(key, 'test_echo')).status).toBe(200);
  return async () => undefined;
}

/** Each key's non-secret id, the one access lines carry. */
const KEY_IDS = new Map(parseKeysFile(KEYS, 'keys.yaml').map((p) => [p.key, p.id]));

/** The access lines written since line `from` for messages sent with `key`. */
const accessLines = (key: string, from = 0) =>
  lines
    .slice(from)
    .map((l) => JSON.parse(l) as { msg: string; keyId?: string; status?: number; refused?: string[] })
    .filter((l) => l.msg === 'request' && l.keyId === KEY_IDS.get(key));

describe('refusals are counted and logged by their reason', () => {
  /** Each kind: what brings the key to its limit (and what ends that afterwards), then the refused call. */
  const CASES: Array<{ reason: RefusalReason; key: string; method: string; setup?: () => Promise<() => Promise<unknown>> }> = [
    { reason: 'rate', key: 'rate-key', method: 'test_echo', setup: () => spend('rate-key') },
    { reason: 'quota', key: 'quota-key', method: 'test_echo', setup: () => spend('quota-key') },
    {
      reason: 'concurrency',
      key: 'heavy-key',
      method: 'test_crunch',
      setup: async () => {
        const held = await holdSlot((m) => post('heavy-key', m));
        return () => {
          held.release();
          return held.answer;
        };
      },
    },
    { reason: 'policy', key: 'method-key', method: 'test_crunch' },
  ];

  it.each(CASES)('$reason', async ({ reason, key, method, setup }) => {
    const before = await Promise.all(CASES.map((c) => refusals(c.reason)));
    const end = await setup?.();
    const from = lines.length;
    const res = await post(key, method);
    await end?.();
    expect(res.status).toBe(reason === 'policy' ? 403 : 429);
    const after = await Promise.all(CASES.map((c) => refusals(c.reason)));
    expect(after.map((n, i) => n - before[i])).toEqual(CASES.map((c) => (c.reason === reason ? 1 : 0)));
    expect(accessLines(key, from)[0]).toMatchObject({ status: res.status, refused: [reason] });
  });

  it('a message with nothing refused has no refused field in its access line', async () => {
    const from = lines.length;
    expect((await post('method-key', 'test_echo')).status).toBe(200);
    const [line] = accessLines('method-key', from);
    expect(line).toMatchObject({ status: 200 });
    expect(line).not.toHaveProperty('refused');
  });
});
