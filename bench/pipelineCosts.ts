/**
 * What each operator control costs a request, in process: one eth_getStorageAt-shaped message
 * (a constant answer, so only the pipeline is measured) through the request pipeline with one
 * more control switched on at each step — the pipeline itself (a session per message, as over HTTP, and metrics), the access log
 * (pino writing to a discarding stream), allowlists (Origin, User-Agent, methods, contracts), a
 * rate limit, a daily quota — plus authentication alone (the key, its HTTP Basic secret, its JWT).
 * Each figure is the median of several rounds of many messages, in µs per message.
 *
 *   npx tsx bench/pipelineCosts.ts [--messages 20000] [--rounds 7] [--json]
 */
import { generateKeyPairSync } from 'node:crypto';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { importPKCS8, SignJWT } from 'jose';
import { pino } from 'pino';
import { ClientGone } from '../src/pipeline/clientGone.js';
import { type KeyPolicy, KeyRegistry } from '../src/pipeline/keys.js';
import { NodeMetrics } from '../src/pipeline/metrics.js';
import { createPipeline, type PipelineNetwork } from '../src/pipeline/pipeline.js';
import { type DispatchLimits, dispatch } from '../src/rpc/dispatch.js';
import { createMethodTable } from '../src/rpc/method.js';

export interface PipelineCost {
  step: string;
  microsPerMessage: number;
  /** Over the step before it. */
  addedMicros: number;
}

const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const SLOT = '0x7d0f1c5e53c0bad1a97326b8d3cd7a07d1c8cfd7e7f0fc0f8fc06c12f2a6c9c5';
const BODY = `{"jsonrpc":"2.0","id":1,"method":"eth_getStorageAt","params":["${TOKEN}","${SLOT}","latest"]}`;
const WORD = `0x${'00'.repeat(31)}2a`;
const LIMITS: DispatchLimits = { maxBatchItems: 1000, maxMethodNameLength: 2048, batchResponseMaxBytes: 25_000_000 };
const quiet = { error() {}, warn() {}, debug() {} };

function network(): PipelineNetwork {
  const methods = createMethodTable<unknown>([{ name: 'eth_getStorageAt', call: async () => WORD }]);
  return { name: 'mainnet', methods, context: undefined, head: async () => ({ number: 1n }) };
}

async function timeIt(messages: number, rounds: number, run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 2000; i++) await run(); // warm-up
  const perRound: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < messages; i++) await run();
    perRound.push(((performance.now() - t0) * 1000) / messages);
  }
  perRound.sort((a, b) => a - b);
  return perRound[Math.floor(perRound.length / 2)];
}

/** Measures every step; `log` gets one line a step. */
export async function measurePipelineCosts(opts: { messages?: number; rounds?: number; log?: (l: string) => void } = {}): Promise<PipelineCost[]> {
  const messages = opts.messages ?? 20_000;
  const rounds = opts.rounds ?? 7;
  const target = network();
  const body = Buffer.from(BODY);
  const origin = 'https://app.example.com';
  const userAgent = 'my-backend/1.0';
  const steps: Array<{ step: string; policy: KeyPolicy; logger: boolean }> = [
    { step: 'pipeline (session, metrics), open key', policy: { key: 'k', id: 'k' }, logger: false },
    { step: '+ access log line (info)', policy: { key: 'k', id: 'k' }, logger: true },
    {
      step: '+ allowlists (origins, user agents, methods, contracts)',
      policy: {
        key: 'k',
        id: 'k',
        allow: { origins: [origin], userAgents: ['my-backend/'], methods: new Set(['eth_getStorageAt']), contracts: new Set([TOKEN]) },
      },
      logger: true,
    },
  ];
  const last = steps[2].policy;
  steps.push({ step: '+ rate limit (never reached)', policy: { ...last, rateLimit: { perSecond: 1e9, burst: 1e9 } }, logger: true });
  steps.push({ step: '+ daily quota (never reached)', policy: { ...last, rateLimit: { perSecond: 1e9, burst: 1e9 }, dailyQuota: 1e12 }, logger: true });

  const out: PipelineCost[] = [];
  const direct = await timeIt(messages, rounds, () => dispatch(body, target, quiet, LIMITS));
  out.push({ step: 'dispatch alone (no pipeline)', microsPerMessage: direct, addedMicros: 0 });
  opts.log?.(`pipeline costs: dispatch alone ${direct.toFixed(2)} µs`);
  let before = direct;
  for (const s of steps) {
    const sink = new Writable({ write: (_c, _e, cb) => cb() });
    const logger = s.logger ? pino({ level: 'info' }, sink) : undefined;
    const keys = new KeyRegistry([s.policy]);
    const pipeline = createPipeline({ keys, metrics: new NodeMetrics({ heads: async () => [] }), logger });
    // A session per message, as over HTTP (one request, one session).
    const us = await timeIt(messages, rounds, () => {
      const session = pipeline.session({
        policy: s.policy,
        target,
        transport: 'http',
        remoteAddress: '127.0.0.1',
        origin,
        userAgent,
        gone: new ClientGone(),
      });
      return pipeline.handle(session, body, LIMITS, quiet);
    });
    out.push({ step: s.step, microsPerMessage: us, addedMicros: us - before });
    opts.log?.(`pipeline costs: ${s.step} ${us.toFixed(2)} µs`);
    before = us;
  }

  // Authentication alone, per request: the key; the key and its secret; the key and its JWT.
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwtKey = { key: pair.publicKey, algorithm: 'ES256' as const };
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'ES256' })
    .setExpirationTime(Math.floor(Date.now() / 1000) + 3600)
    .sign(await importPKCS8(pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 'ES256'));
  const keys = new KeyRegistry([
    { key: 'plain-key', id: 'plain' },
    { key: 'secret-key', id: 'secret', secret: 's3cret' },
    { key: 'jwt-key', id: 'jwt', jwt: { keys: [jwtKey] } },
  ]);
  const pipeline = createPipeline({ keys, metrics: new NodeMetrics({ heads: async () => [] }), logger: undefined });
  const basic = `Basic ${Buffer.from(':s3cret').toString('base64')}`;
  for (const [step, key, authorization] of [
    ['authentication: key only', 'plain-key', undefined],
    ['authentication: key + HTTP Basic secret', 'secret-key', basic],
    ['authentication: key + JWT (ES256)', 'jwt-key', `Bearer ${token}`],
  ] as const) {
    const us = await timeIt(step.includes('JWT') ? Math.ceil(messages / 20) : messages, rounds, async () => {
      const r = await pipeline.authenticate({ key, authorization });
      if (!r.ok) throw new Error(`${step}: refused`);
    });
    out.push({ step, microsPerMessage: us, addedMicros: us });
    opts.log?.(`pipeline costs: ${step} ${us.toFixed(2)} µs`);
  }
  return out;
}

/** The costs as a Markdown table. */
export function renderPipelineCosts(costs: readonly PipelineCost[]): string {
  const rows = costs.map(
    (c) =>
      `| ${c.step} | ${c.microsPerMessage.toFixed(2)} | ${c.addedMicros === c.microsPerMessage ? '' : `${c.addedMicros >= 0 ? '+' : ''}${c.addedMicros.toFixed(2)}`} |`,
  );
  return ['| step | µs per message | added |', '|---|---|---|', ...rows].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { messages: { type: 'string' }, rounds: { type: 'string' }, json: { type: 'boolean' } } });
  const costs = await measurePipelineCosts({
    messages: values.messages ? Number(values.messages) : undefined,
    rounds: values.rounds ? Number(values.rounds) : undefined,
  });
  process.stdout.write(values.json ? `${JSON.stringify(costs)}\n` : `${renderPipelineCosts(costs)}\n`);
}
