/**
 * A run's results as text: the markdown tables printed on the terminal (ratios first, then
 * absolute figures, import, memory, the Starknet bench, the targets, problems) and BENCHMARKS.md,
 * which wraps them with the machine, the chain, the method and how to reproduce.
 */
import { DEFAULTS } from './options.js';
import { renderRealBlocks } from './realBlocks.js';
import type { ReplicasReport } from './replicas.js';
import { type BenchReport, badCount, type CaseResult, SERVERS, type ServerName, type Transport } from './results.js';
import type { SubscriptionsReport } from './subscriptions.js';
import { renderCallBounds, renderTrafficMix } from './trafficMixReport.js';
import { renderWalletWait } from './walletWait.js';
import type { LoadResult } from './wsLoad.js';

/** Requests per second, with fewer decimals as the number grows. */
export function fmtRps(x: number): string {
  return x >= 100 ? Math.round(x).toString() : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}
/** Milliseconds, with fewer decimals as the number grows. */
export function fmtMs(x: number): string {
  return x >= 100 ? Math.round(x).toString() : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}
function fmtRatio(a?: number, b?: number): string {
  return a !== undefined && b !== undefined && b > 0 ? `${(a / b).toFixed(2)}×` : '–';
}

function mdTable(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (c ?? '').padEnd(widths[i])).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** The tables: ratios, absolute figures, import, memory, Starknet bench, targets. */
export function renderTables(rep: BenchReport): string {
  const parts: string[] = [];
  const ratioRows = rep.cases.map((k) => {
    const s = k.servers;
    return [
      k.name,
      fmtRatio(s.tracenode?.http?.rps, s.floor?.http?.rps),
      fmtRatio(s.tracenode?.http?.rps, s.nodeFloor?.http?.rps),
      fmtRatio(s.tracenode?.http?.rps, s.anvil?.http?.rps),
      fmtRatio(s.tracenode?.ws?.rps, s.floor?.ws?.rps),
      fmtRatio(s.tracenode?.ws?.rps, s.anvil?.ws?.rps),
      fmtRatio(s.tracenode?.c1?.p50, s.anvil?.c1?.p50),
      k.crossCheck.startsWith('equal') ? 'equal' : k.crossCheck.startsWith('differs') ? 'DIFFERS' : '–',
    ];
  });
  parts.push(
    '### Ratios (throughput: higher is better for tracenode; latency: lower is better)\n\n' +
      mdTable(
        ['case', 'HTTP tn/floor', 'HTTP tn/node floor', 'HTTP tn/anvil', 'WS tn/floor', 'WS tn/anvil', 'p50 latency tn/anvil (1 conn)', 'answer vs anvil'],
        ratioRows,
      ),
  );
  const cell = (r?: LoadResult) => (r ? `${fmtRps(r.rps)} (${fmtMs(r.p50)} / ${fmtMs(r.p99)})` : '–');
  const errs = (k: CaseResult, tr: Transport) =>
    SERVERS.filter((s) => k.servers[s])
      .map((s) => String(badCount(k.servers[s]![tr])))
      .join('/');
  const absRows: string[][] = [];
  for (const k of rep.cases) {
    for (const tr of ['http', 'ws'] as const) {
      absRows.push([
        tr === 'http' ? k.name : '',
        tr.toUpperCase(),
        cell(k.servers.tracenode?.[tr]),
        cell(k.servers.anvil?.[tr]),
        cell(k.servers.floor?.[tr]),
        cell(k.servers.nodeFloor?.[tr]),
        errs(k, tr),
      ]);
    }
    const c1 = (s: ServerName) => {
      const probe = k.servers[s]?.c1;
      return probe ? `${fmtMs(probe.p50)} / ${fmtMs(probe.p99)}` : '–';
    };
    absRows.push(['', '1 conn p50/p99', c1('tracenode'), c1('anvil'), c1('floor'), c1('nodeFloor'), '']);
  }
  parts.push(
    `### Absolute figures: req/s (p50 / p99 ms), ${rep.settings.connections} connections${rep.settings.connections > 1 ? ' or sockets' : ''}; errors = wrong or failed answers\n\n` +
      mdTable(['case', 'transport', 'tracenode', 'anvil', 'floor', 'node floor', `errors (${SERVERS.join('/')})`], absRows),
  );
  const cpu = (r?: LoadResult) => (r?.cpuUsPerRequest !== undefined ? String(Math.round(r.cpuUsPerRequest)) : '–');
  const cpuRatio = (a?: LoadResult, b?: LoadResult) => fmtRatio(a?.cpuUsPerRequest, b?.cpuUsPerRequest);
  const cpuRows: string[][] = [];
  for (const k of rep.cases) {
    for (const tr of ['http', 'ws'] as const) {
      const s = k.servers;
      if (!s.tracenode?.[tr]) continue;
      cpuRows.push([
        tr === 'http' ? k.name : '',
        tr.toUpperCase(),
        cpu(s.tracenode?.[tr]),
        cpu(s.anvil?.[tr]),
        cpu(s.floor?.[tr]),
        cpu(s.nodeFloor?.[tr]),
        cpuRatio(s.tracenode?.[tr], s.anvil?.[tr]),
        cpuRatio(s.tracenode?.[tr], tr === 'http' ? s.nodeFloor?.http : s.floor?.ws),
      ]);
    }
  }
  if (cpuRows.some((r) => r[2] !== '–')) {
    parts.push(
      '### CPU time per answered request, µs (user + system of the server process, all its threads, from /proc, over the measured window; lower is better)\n\n' +
        mdTable(['case', 'transport', 'tracenode', 'anvil', 'floor', 'node floor', 'tn ÷ anvil', 'tn ÷ echo (HTTP: node:http, WS: Fastify)'], cpuRows),
    );
  }
  if (rep.import) {
    const i = rep.import;
    parts.push(
      `### Import (${rep.chain.head} blocks, ${rep.chain.transactions} transactions, ${(i.raw.gasUsed / 1e6).toFixed(0)} Mgas; measured ${i.measuredAt.slice(0, 16).replace('T', ' ')} UTC)\n\n` +
        mdTable(
          ['', 'blocks/s', 'Mgas/s', 'seconds'],
          [
            [
              'tracenode import (execute + verify + write LevelDB)',
              String(i.tracenode.blocksPerSecond),
              String(i.tracenode.mgasPerSecond),
              String(i.tracenode.seconds),
            ],
            ['raw @ethereumjs/vm in memory (no database)', String(i.raw.blocksPerSecond), String(i.raw.mgasPerSecond), String(i.raw.seconds)],
            ['ratio tracenode / raw', `${i.ratio.blocks}×`, `${i.ratio.mgas}×`, ''],
          ],
        ),
    );
  }
  const m = rep.memory;
  parts.push(
    '### tracenode memory (RSS)\n\n' +
      mdTable(
        ['state', 'MiB'],
        [
          ['at rest (servers up, no request yet)', m.restMiB !== undefined ? String(m.restMiB) : '–'],
          [`${m.idleSocketsOpen ?? 0} of ${m.idleSockets ?? 0} idle WebSocket connections open`, m.idleMiB !== undefined ? String(m.idleMiB) : '–'],
          ['peak under the load above', m.underLoadMiB !== undefined ? String(m.underLoadMiB) : '–'],
          ...(rep.memoryChecks
            ? [
                [
                  `a WebSocket client sends ${rep.memoryChecks.unreadWebSocket.messages} requests of a ${rep.memoryChecks.unreadWebSocket.answerBytes}-byte answer (${rep.memoryChecks.unreadWebSocket.requestedMiB} MiB) and never reads: rest → peak → after (closed with ${rep.memoryChecks.unreadWebSocket.closeCode ?? 'nothing'})`,
                  `${rep.memoryChecks.unreadWebSocket.restMiB} → ${rep.memoryChecks.unreadWebSocket.peakMiB} → ${rep.memoryChecks.unreadWebSocket.afterMiB}`,
                ],
                [
                  `a batch of ${rep.memoryChecks.proofBatch.items} eth_getProof: ${rep.memoryChecks.proofBatch.answerMiB} MiB answer in ${rep.memoryChecks.proofBatch.ms} ms, ${rep.memoryChecks.proofBatch.proofs} proofs, ${rep.memoryChecks.proofBatch.limited} past the batch answer limit: rest → peak`,
                  `${rep.memoryChecks.proofBatch.restMiB} → ${rep.memoryChecks.proofBatch.peakMiB}`,
                ],
              ]
            : []),
        ],
      ),
  );
  if (rep.starknetBench) {
    parts.push(
      `### starknet_getEvents in process (bench/starknetEvents.ts ${rep.starknetBench.args.filter((a) => a !== '--keep' && !a.includes('/')).join(' ')})\n\n` +
        (rep.starknetBench.importLine ? `${rep.starknetBench.importLine}\n\n` : '') +
        mdTable(
          ['query', 'events', 'median ms', 'p99 ms', 'note'],
          rep.starknetBench.rows.map((r) => [r.query, r.events, String(r.medianMs), String(r.p99Ms), r.note]),
        ),
    );
  }
  if (rep.pipelineCosts) {
    parts.push(
      '### What each operator control costs a message (in process, bench/pipelineCosts.ts)\n\n' +
        'An eth_getStorageAt-shaped message with a constant answer, so that only the pipeline is measured; each row switches one control more on; µs per message, median of the rounds. The authentication rows are separate: the key alone, with its HTTP Basic secret, with an ES256 JWT.\n\n' +
        mdTable(
          ['step', 'µs per message', 'added'],
          rep.pipelineCosts.map((c) => [
            c.step,
            c.microsPerMessage.toFixed(2),
            c.step.startsWith('authentication') || c.addedMicros === 0 ? '' : `${c.addedMicros >= 0 ? '+' : ''}${c.addedMicros.toFixed(2)}`,
          ]),
        ),
    );
  }
  if (rep.evmPool) {
    const ep = rep.evmPool;
    parts.push(
      `### EVM worker pool (bench/evmPool.ts; tracenode started for this section, default pool ${ep.defaultWorkers} workers)\n\n` +
        'Heavy eth_call at 8 connections by pool size (`--execution.evm-workers`), with the RSS of the process at rest (workers started) and at its peak:\n\n' +
        mdTable(
          ['workers', 'heavy eth_call req/s', 'p50 ms', 'vs 1 worker', 'RSS rest MiB', 'RSS peak MiB', 'bad answers'],
          ep.throughput.map((t) => [
            String(t.workers),
            String(t.heavyRps),
            String(t.heavyP50Ms),
            `${t.speedup}×`,
            String(t.restMiB),
            String(t.peakMiB),
            String(t.bad),
          ]),
        ) +
        '\n\nHead-of-line blocking: eth_getStorageAt at latest from one connection, idle and while 4 other connections send the heavy eth_call without pause:\n\n' +
        mdTable(
          ['server', 'idle p50 / p99 ms', 'loaded p50 / p99 ms', 'p99 loaded / idle', 'heavy req/s meanwhile', 'bad answers'],
          ep.headOfLine.map((h) => [
            h.server,
            `${fmtMs(h.idle.p50)} / ${fmtMs(h.idle.p99)}`,
            `${fmtMs(h.loaded.p50)} / ${fmtMs(h.loaded.p99)}`,
            `${h.p99Ratio}×`,
            String(h.heavyRpsMeanwhile),
            String(h.bad),
          ]),
        ) +
        `\n\nA batch of ${ep.batch1000.items} balanceOf eth_calls: answered in ${ep.batch1000.ms} ms (${ep.batch1000.allRight ? 'every answer right' : 'WRONG answers'}); eth_blockNumber from another connection meanwhile, every 20 ms: p50 ${fmtMs(ep.batch1000.blockNumberP50Ms)} ms, max ${fmtMs(ep.batch1000.blockNumberMaxMs)} ms (${ep.batch1000.blockNumberSamples} samples). ` +
        `trace_block of the heaviest block: ${ep.traceBlock.coldMs} ms cold (first request after start), ${ep.traceBlock.warmMs} ms warm.`,
    );
  }
  if (rep.follow) {
    const f = rep.follow;
    parts.push(
      '### Following anvil (bench/follow.ts)\n\n' +
        mdTable(
          ['what', 'figure'],
          [
            [
              `catch-up of ${f.blocks} blocks: tracenode follow (blocks rebuilt from anvil's JSON)`,
              `${f.follow.blocksPerS} blocks/s, ${f.follow.mgasPerS} Mgas/s (${f.follow.seconds} s)`,
            ],
            ['the same chain: tracenode import of its RLP, same run', `${f.import.blocksPerS} blocks/s, ${f.import.mgasPerS} Mgas/s (${f.import.seconds} s)`],
            ['follow ÷ import', `${f.ratio}×`],
            [
              'eth_getStorageAt p50 / p99, one connection, while serve --follow catches up',
              `${fmtMs(f.readsDuringCatchUp.catchingUp.p50)} / ${fmtMs(f.readsDuringCatchUp.catchingUp.p99)} ms`,
            ],
            [
              'the same once caught up',
              `${fmtMs(f.readsDuringCatchUp.idle.p50)} / ${fmtMs(f.readsDuringCatchUp.idle.p99)} ms (p99 ${f.readsDuringCatchUp.p99Ratio}×)`,
            ],
            [
              `a block anvil mines, served by tracenode (ws:// newHeads, ${f.live.blocks} empty blocks)`,
              `p50 ${f.live.p50Ms} ms, p99 ${f.live.p99Ms} ms, max ${f.live.maxMs} ms`,
            ],
          ],
        ),
    );
  }
  if (rep.followFrom) {
    const ff = rep.followFrom;
    const rows = [
      [`serve --from latest on an empty datadir, anvil holding ${ff.start.head} blocks: first correct eth_getBalance at the head`, `${ff.start.seconds} s`],
      ...(ff.startOnBenchChain ? [[`the same on the run's bench chain (block ${ff.startOnBenchChain.head})`, `${ff.startOnBenchChain.seconds} s`]] : []),
      [
        `catch-up of the last ${ff.catchUp.blocks} blocks from a checkpoint, anvil the upstream (${ff.catchUp.source}: ${ff.catchUp.callsPerBlock} calls a block)`,
        `${ff.catchUp.follow.mgasPerS} Mgas/s (${ff.catchUp.follow.seconds} s)`,
      ],
      ['offline import of the same blocks, same run', `${ff.catchUp.import.mgasPerS} Mgas/s (${ff.catchUp.import.seconds} s): follow ${ff.catchUp.ratio}×`],
      [
        'CPU seconds: tracenode following, tracenode importing, anvil serving the follower',
        `${ff.catchUp.cpu?.follow ?? '–'}, ${ff.catchUp.cpu?.import ?? '–'}, ${ff.catchUp.cpu?.upstream ?? '–'}`,
      ],
      ...(ff.witnessCatchUp
        ? [
            [
              `the same blocks, a from-genesis tracenode the upstream (${ff.witnessCatchUp.source}: ${ff.witnessCatchUp.callsPerBlock} call a block)`,
              `${ff.witnessCatchUp.follow.mgasPerS} Mgas/s: ${ff.witnessCatchUp.ratio}× import`,
            ],
          ]
        : []),
      [
        `first read of never-touched state at latest (p50 of ${ff.firstRead.reads}, ${ff.firstRead.fetched} fetched)`,
        `${ff.firstRead.p50Ms} ms; anvil's eth_getProof ${ff.firstRead.upstreamProofP50Ms} ms (+${ff.firstRead.overMs} ms)`,
      ],
      ['state bytes per block followed', `${ff.bytesPerBlock.followed}; a from-genesis archive ${ff.bytesPerBlock.fromGenesis}`],
    ];
    parts.push(`### An archive from block N beside anvil (bench/followFrom.ts, a 400-block bench chain of its own)\n\n${mdTable(['what', 'figure'], rows)}`);
  }
  if (rep.realBlocks) parts.push(renderRealBlocks(rep.realBlocks, mdTable));
  if (rep.walletWait) parts.push(renderWalletWait(rep.walletWait, mdTable));
  if (rep.trafficMix) parts.push(renderTrafficMix(rep.trafficMix, mdTable));
  const callBounds = renderCallBounds(rep, mdTable);
  if (callBounds !== undefined) parts.push(callBounds);
  if (rep.subscriptions) {
    const sub = rep.subscriptions;
    const row = (kind: string, x: SubscriptionsReport['newHeads']) => [
      kind,
      `${fmtMs(x.fanOutP50Ms)} / ${fmtMs(x.fanOutP99Ms)} ms`,
      `${fmtMs(x.minedToLastP50Ms)} / ${fmtMs(x.minedToLastP99Ms)} ms`,
    ];
    parts.push(
      '### Subscriptions (bench/subscriptions.ts)\n\n' +
        `serve --follow beside an anvil of its own; ${sub.clientsPerKind} WebSocket clients subscribed to newHeads and ${sub.clientsPerKind} to a logs filter, one subscription a socket; ${sub.blocks} blocks mined one at a time, one log each; every notification checked against what anvil mined.\n\n` +
        mdTable(
          ['subscription', 'first client → last client p50 / p99 (block imported → last client)', 'evm_mine answered → last client p50 / p99'],
          [row('newHeads', sub.newHeads), row('logs', sub.logs)],
        ) +
        `\n\nMemory: RSS ${sub.idle.rssBeforeMiB} → ${sub.idle.rssAfterMiB} MiB with ${sub.idle.subscriptions} idle newHeads subscriptions on ${sub.idle.connections} sockets (${sub.idle.bytesPerSubscription} bytes a subscription, its share of the socket included).`,
    );
  }
  if (rep.replicas) {
    const r = rep.replicas;
    const t = (x: ReplicasReport['storage']['direct']) => `${fmtRps(x.rps)} (${fmtMs(x.p50Ms)} / ${fmtMs(x.p99Ms)} ms)${x.errors ? `, ${x.errors} bad` : ''}`;
    parts.push(
      '### Several replicas behind HAProxy (bench/replicas.ts)\n\n' +
        `Copies of the bench datadir (tracenode snapshot: ${r.snapshot.mib} MiB in ${r.snapshot.seconds} s, ${r.snapshot.mibPerSecond} MiB/s), each served with --redis and one EVM worker; HAProxy with deploy/haproxy.cfg. HTTP keep-alive, req/s (p50 / p99). Replicas, HAProxy, Redis and the load generator share this machine's cores: throughput cannot grow with replicas here; the per-request costs below are what carry over to a larger host.\n\n` +
        mdTable(
          ['path', 'eth_getStorageAt latest', 'eth_call (balanceOf)'],
          [
            ['straight to one replica', t(r.storage.direct), t(r.call.direct)],
            ...r.storage.viaBalancer.map((x, i) => [`HAProxy, ${i + 1} replica${i ? 's' : ''}`, t(x), t(r.call.viaBalancer[i])]),
          ],
        ) +
        `\n\nPer request, one connection, p50: the balancer's hop ${r.balancerHopUs} µs; a rate limit counted in Redis ${r.redisLimiterUs} µs (counted in the process: ${r.localLimiterUs} µs). RSS of the replicas after the load: ${r.rssMiB.join(', ')} MiB.`,
    );
  }
  parts.push(
    '### Targets (issues 3, 4, 5, 7, 14, 15, 16, 18, 26, 31, 39)\n\n' +
      mdTable(
        ['issue', 'target', 'measured', 'met'],
        rep.targets.map((t) => [`#${t.issue}`, t.target, t.measured + (t.note ? ` — ${t.note}` : ''), t.met === null ? '–' : t.met ? 'yes' : 'NO']),
      ),
  );
  const problems = rep.cases.flatMap((k) => k.problems.map((p) => `- ${k.name}: ${p}`));
  const diffs = rep.cases.filter((k) => k.crossCheck.startsWith('differs')).map((k) => `- ${k.name}: ${k.crossCheck}`);
  if (problems.length || diffs.length) parts.push(`### Problems\n\n${[...problems, ...diffs].join('\n')}`);
  return parts.join('\n\n');
}

/** BENCHMARKS.md for a report; `resultsFile` is where its raw figures are kept. */
export function renderMarkdown(rep: BenchReport, resultsFile: string | undefined): string {
  const m = rep.machine;
  const s = rep.settings;
  return `# Benchmarks

Produced by \`npm run bench\` (bench/run.ts) on ${rep.date.slice(0, 16).replace('T', ' ')} UTC${m.commit ? ` at commit ${m.commit}` : ''}; this file is rewritten by every full run${resultsFile ? ` (raw figures: \`${resultsFile}\`)` : ''}.

**Machine:** ${m.cores} cores (${m.cpu}), ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}, ${m.anvil}. Load average ${m.loadAverage.start.join(' ')} at the start, ${m.loadAverage.end.join(' ')} at the end (the machine is shared; ratios between servers measured in the same minute are the figures to read, absolute ones move with the load).

**Chain:** the \`bench\` scenario of \`scripts/anvilChain.ts\`: ${rep.chain.head} blocks, ${rep.chain.transactions} transactions (ERC-20 and ERC-721 transfers, AMM swaps, deployments, reverting transactions), mined on anvil and imported into tracenode. anvil: ${rep.chain.anvilBoot}. Heaviest block ${rep.chain.heaviestBlock} (${rep.chain.heaviestBlockGasUsed} gas); rare address in blocks ${rep.chain.rareBlocks.join(', ')}.

**Method:** every case runs against tracenode (built \`dist/cli.js\`, as \`npm start\` runs it, at the default log level info: one access line per request; the \`controlled\` network's key has every per-key control on; the eth_call result and eth_estimateGas answer caches off, \`--execution.call-cache-bytes 0 --execution.estimate-cache-bytes 0\`, since each case repeats one request: the cases measure each call's own run, the traffic mix section the caches), anvil (same chain) and the floor (\`bench/floor.ts\`: a bare Fastify app that parses the JSON-RPC envelope and answers a constant), in turn; the transport-bound cases (eth_blockNumber, eth_getStorageAt at latest) also against the node floor (\`bench/floor.ts --node\`: the same answers from Node's HTTP server with no framework, HTTP only), because tracenode answers well-formed HTTP requests before Fastify's router (src/transport/fastPath.ts) and so can go below the Fastify floor; both ratios are reported, on 127.0.0.1, with the load generator on the same machine: over HTTP keep-alive with autocannon (${s.connections} connections) and over WebSocket (\`bench/wsLoad.ts\`: ${s.connections} sockets, one request in flight each), ${s.durationS} s measured after a ${s.warmupS} s warm-up; then ${s.probeS} s over one HTTP connection for the unloaded latency (the latency targets use this one: under ${s.connections} connections, a single-threaded server's latency is mostly queueing). Every answer is checked during the run: tracenode's and anvil's against tracenode's answer fetched before the run (cross-checked against anvil's first; a difference is reported under Problems and anvil is then held to its own first answer), the floor's against its constant. A wrong answer counts as an error. Import: \`tracenode import\` on the whole chain vs \`bench/rawExecution.ts\` (@ethereumjs/vm \`runBlock\` on the same blocks, state in memory, no database), measured one after the other when the cache is built. The Starknet cases use the chain of \`bench/starknetEvents.ts\` (its in-process table below), served by the same tracenode process as a second network.

## How to reproduce

\`\`\`sh
npm ci
npm run bench                       # full run (${DEFAULTS.full.blocks} blocks; the first run builds bench/.cache — about 40 min on 2 cores, mostly import and the raw-execution floor — later runs reuse it, ~12 min for the cases; the EVM pool and follow sections add a few minutes, follow importing and following the whole chain)
npm run bench -- --blocks 2000      # a smaller chain for a quicker full table (trace_filter then spans fewer blocks than issue 5 asks)
npm run bench -- --quick            # small chain, ${DEFAULTS.quick.durationS} s per run
npm run bench -- --only trace_      # cases whose name contains "trace_" (comma-separate several)
npm run bench -- --duration 10 --connections 32 --fresh   # longer runs, more load, rebuilt cache
\`\`\`

${renderTables(rep)}
`;
}
