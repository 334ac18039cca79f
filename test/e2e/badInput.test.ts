import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Network, openNetwork } from '../../src/cli/networks.js';
import { ethereumMethods } from '../../src/methods/ethereum.js';
import { starknetMethods } from '../../src/methods/starknet.js';
import { FIXTURES, importFixtureChain, tempDir } from '../helpers/chains.js';
import { runCli } from '../helpers/cli.js';
import { connect, rawHttp, type StartedServer, startServer, TEST_API_KEY, TRANSPORTS } from '../helpers/rpcClient.js';
import { testConfig } from '../helpers/testConfig.js';
import { within } from '../helpers/until.js';

/**
 * A property-based sweep of bad input (fast-check, seeded): random envelopes, and random arguments
 * for every method the Ethereum network (the execution-apis chain) and the Starknet network (the
 * sepolia-integration blocks) serve, over HTTP and WebSocket. Every answer must come (no hang),
 * be a valid JSON-RPC body carrying the request's id, an error of the class the input deserves
 * (never -32603, which means the node failed), with a message shorter than 512 characters; the
 * server must still answer afterwards.
 * `TRACENODE_FUZZ_RUNS` runs longer (the default keeps the suite under a minute).
 */

const RUNS = Number(process.env.TRACENODE_FUZZ_RUNS ?? 100);
const SEED = Number(process.env.TRACENODE_FUZZ_SEED ?? 20261124);
const NETWORKS = [
  { name: 'ethereum', host: undefined, methods: [...ethereumMethods.keys()].sort() },
  { name: 'starknet', host: 'starknet-sepolia.localhost', methods: [...starknetMethods.keys()].sort() },
] as const;
/** A ceiling on each answer, far above the 5 s call deadline a bad request may run into: past it, a hang. */
const HANG_MS = 30_000;

const tmp = tempDir();
let opened: Network[] = [];
let server: StartedServer;
beforeAll(async () => {
  const eth = join(tmp.dir, 'eth');
  const sn = join(tmp.dir, 'sn');
  await (await importFixtureChain(join(FIXTURES, 'execution-apis'), eth)).close();
  expect((await runCli(['import-starknet', '--datadir', sn, join(FIXTURES, 'starknet', 'sepolia-integration-blocks.ndjson')])).code).toBe(0);
  opened = [await openNetwork('mainnet', eth, 'test', testConfig()), await openNetwork('starknet-sepolia', sn, 'test', testConfig())];
  server = await startServer({ networks: opened.map((n) => n.handle), apiKeys: [TEST_API_KEY], logger: false });
}, 120_000);
afterAll(async () => {
  await server?.close();
  await Promise.all(opened.map((n) => n.close()));
  tmp.cleanup();
});

/** Hex strings of every near-miss shape: odd length, leading zeros, too long, no prefix, bad digits. */
const hexish = fc.oneof(
  fc.stringMatching(/^0x[0-9a-fA-F]{0,70}$/),
  fc.stringMatching(/^0x0{1,5}[0-9a-f]{1,5}$/),
  fc.stringMatching(/^[0-9a-f]{1,66}$/),
  fc.stringMatching(/^0x[0-9a-z]{1,10}$/),
  fc.constantFrom('0x', '0X1', 'latest', 'pending', 'earliest', 'safe', 'finalized', 'nope', '0x7dcd17433742f4c0ca53122ab541d0ba67fc27df'),
);
/** Any JSON value, biased towards the shapes Ethereum arguments take. */
const argument: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hexish },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 1,
    arbitrary: fc.dictionary(
      fc.constantFrom('to', 'from', 'data', 'input', 'gas', 'value', 'address', 'topics', 'fromBlock', 'toBlock', 'blockHash', 'after', 'count', 'mode'),
      hexish,
    ),
  },
  { weight: 1, arbitrary: fc.array(hexish, { maxLength: 4 }) },
);
const id = fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.constant(null));
/** Codes a bad input may get: envelope, method, params, and the node's answers to valid but failing calls. */
const ALLOWED = new Set([-32700, -32600, -32601, -32602, -32000, -32001, -32004, -32005, 3]);
/**
 * On Starknet, also the spec's answers to valid but failing calls: contract not found (20), block
 * not found (24), invalid transaction index (27), class hash not found (28), transaction hash not
 * found (29), page size too big (31), invalid continuation token (33), too many keys (34), invalid
 * subscription id (66), too many blocks back (68).
 */
const ALLOWED_STARKNET = new Set([...ALLOWED, 20, 24, 27, 28, 29, 31, 33, 34, 66, 68]);

interface Body {
  text: string;
  id: unknown;
}
/** Starknet arguments: felts, block ids and filter objects, right and wrong. */
const starknetArgument: fc.Arbitrary<unknown> = fc.oneof(
  hexish,
  fc.record({ block_number: fc.oneof(fc.integer(), fc.string()) }),
  fc.record({
    filter: fc.dictionary(fc.constantFrom('from_block', 'to_block', 'address', 'keys', 'chunk_size', 'continuation_token'), fc.oneof(argument, fc.integer())),
  }),
  fc.jsonValue({ maxDepth: 3 }),
);
const callBody = (methods: readonly string[], args: fc.Arbitrary<unknown>) =>
  fc
    .record({
      method: fc.constantFrom(...methods),
      params: fc.oneof({ weight: 5, arbitrary: fc.array(args, { maxLength: 5 }) }, { weight: 1, arbitrary: args }),
      id,
    })
    .map((c): Body => ({ text: JSON.stringify({ jsonrpc: '2.0', id: c.id, method: c.method, params: c.params }), id: c.id }));
const envelopeBody = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v): Body => ({ text: JSON.stringify(v), id: undefined })),
  fc.string({ maxLength: 200 }).map((s): Body => ({ text: s, id: undefined })),
  fc
    .record({ jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue()), id, method: fc.oneof(fc.string(), fc.jsonValue()), params: fc.jsonValue() })
    .map((o): Body => ({ text: JSON.stringify(o), id: undefined })),
);

function checkAnswer(body: Body, text: string, allowed = ALLOWED): void {
  if (text === '') return; // a notification, or a batch of them
  const answer = JSON.parse(text) as unknown;
  for (const a of Array.isArray(answer) ? answer : [answer]) {
    expect(a.jsonrpc, text.slice(0, 200)).toBe('2.0');
    if (body.id !== undefined && !Array.isArray(answer)) expect(a.id, body.text.slice(0, 200)).toEqual(body.id);
    if (a.error !== undefined) {
      expect(allowed.has(a.error.code), `${body.text.slice(0, 300)} → ${text.slice(0, 300)}`).toBe(true);
      expect(typeof a.error.message).toBe('string');
      expect(a.error.message.length, a.error.message.slice(0, 200)).toBeLessThan(512);
    } else {
      expect('result' in a, text.slice(0, 200)).toBe(true);
    }
  }
}

for (const transport of TRANSPORTS) {
  for (const network of NETWORKS) {
    describe(`bad input sweep: ${network.name} [${transport}]`, () => {
      let client: Awaited<ReturnType<typeof connect>>;
      beforeAll(async () => {
        client = await connect(transport, server.url, TEST_API_KEY, { host: network.host });
      });
      afterAll(() => client?.close());

      it(`every method with random arguments (${RUNS} runs a method, seed ${SEED})`, async () => {
        await fc.assert(
          fc.asyncProperty(callBody(network.methods, network.name === 'starknet' ? starknetArgument : argument), async (body) => {
            const reply = await within(body.text.slice(0, 200), client.send(body.text), HANG_MS);
            checkAnswer(body, reply.text, network.name === 'starknet' ? ALLOWED_STARKNET : ALLOWED);
          }),
          { numRuns: RUNS * network.methods.length, seed: SEED, endOnFailure: true },
        );
      }, 120_000);

      it(`random envelopes (${RUNS * 5} runs, seed ${SEED})`, async () => {
        await fc.assert(
          fc.asyncProperty(envelopeBody, async (body) => {
            const reply = await within(body.text.slice(0, 200), client.send(body.text), HANG_MS);
            checkAnswer(body, reply.text);
          }),
          { numRuns: RUNS * 5, seed: SEED, endOnFailure: true },
        );
      }, 120_000);
    });
  }
}

it('the server still answers after the sweep', async () => {
  const res = await rawHttp(`${server.url}/health`, { method: 'GET' });
  expect(res.status).toBe(200);
  expect(JSON.parse(res.text)).toMatchObject({ ok: true });
});
