/**
 * The bench's cases: for each, the request every server is sent, the sanity check tracenode's
 * answer must pass before anything is measured (a fast wrong answer is an error, not a result),
 * and, where anvil cannot take the same request or adds fields METHODS.md leaves out, what anvil
 * is sent instead and how its answer is brought to tracenode's shape (documented per case).
 */
import { type BenchChain, balanceSlot, benchUser } from './chains.js';
import { field, isRecord, listOf, requestBody, stringOf, toAnswer, toBatch } from './jsonRpc.js';
import type { Network, ServerName } from './names.js';

/** Why an answer is not plausible, or undefined when it is. */
export type Sanity = (answer: unknown) => string | undefined;

/** One case: what every server is asked, and how tracenode's and anvil's answers are judged. */
export interface CaseDef {
  name: string;
  issue: number;
  network: Network;
  anvil: boolean;
  /** The request (JSON text); every answer must be the same. */
  body: string;
  /** Returns a reason when tracenode's answer is not plausible (e.g. empty where results exist). */
  sanity?: Sanity;
  /** Removes what anvil adds and METHODS.md leaves out (documented per case). */
  normalizeAnvil?: (answer: unknown) => unknown;
  /**
   * What anvil is asked instead of `body` when it cannot take the same request (documented per
   * case); `normalizeAnvil` then turns its answer into the shape of tracenode's.
   */
  anvilBody?: string;
  /** Also measured against the node:http floor (HTTP): the cases bound by transport cost. */
  nodeFloor?: boolean;
  note?: string;
}

/** Every case, in the order of the tables. */
export const CASE_NAMES = [
  'eth_blockNumber',
  'eth_getStorageAt latest',
  'eth_getStorageAt latest (every control on)',
  'eth_getStorageAt historic',
  'eth_getProof 1 key',
  'eth_getProof 10 keys',
  'eth_call view (balanceOf)',
  'eth_call heavy loop',
  'eth_call revert',
  'eth_getUncleByBlockNumberAndIndex (demo chain)',
  'trace_transaction (heaviest block)',
  'trace_block (heaviest block)',
  'debug_traceTransaction callTracer (recent block)',
  'trace_replayBlockTransactions trace+stateDiff (recent block)',
  'eth_createAccessList (ERC-20 transfer)',
  'eth_estimateGas (ERC-20 transfer)',
  'eth_simulateV1 (ERC-20 transfer)',
  'trace_filter (rare address, whole chain)',
  'eth_getLogs (one contract, whole chain)',
  'starknet_getEvents selective',
  'starknet_getEvents broad (page 1)',
  'batch of 50',
] as const;
/** The name of a case. */
export type CaseName = (typeof CASE_NAMES)[number];

/** The case names that contain one of `only` (case-insensitive); all of them when `only` is empty. */
export function selectCases(only: string[] | undefined): CaseName[] {
  if (!only || only.length === 0) return [...CASE_NAMES];
  const subs = only.map((s) => s.toLowerCase());
  return CASE_NAMES.filter((n) => subs.some((s) => n.toLowerCase().includes(s)));
}

/** Sorts case definitions into the order of CASE_NAMES. */
export function byCaseOrder(a: CaseDef, b: CaseDef): number {
  const at = (d: CaseDef) => (CASE_NAMES as readonly string[]).indexOf(d.name);
  return at(a) - at(b);
}

/** The request a server is sent for a case. */
export const bodyFor = (def: CaseDef, server: ServerName): string => (server === 'anvil' && def.anvilBody ? def.anvilBody : def.body);

/** anvil answers trace_filter over at most this many blocks (1.7.1: "block range too large, currently limited to 300"). */
const ANVIL_TRACE_FILTER_RANGE = 300;

const hex = (n: number | bigint) => `0x${n.toString(16)}`;

/** A sanity check of a single answer's `result`; an answer without one fails with its error. */
const onResult =
  (check: (result: unknown) => string | undefined): Sanity =>
  (a) => {
    const answer = toAnswer(a);
    if (!answer || !('result' in answer)) return `no result: ${JSON.stringify(answer?.error ?? a)?.slice(0, 200)}`;
    return check(answer.result);
  };

const nonEmptyList = (r: unknown) => ((listOf(r)?.length ?? 0) > 0 ? undefined : 'empty or not a list');

const nonZeroWord = onResult((r) => {
  const word = stringOf(r);
  return word !== undefined && /^0x[0-9a-f]{64}$/.test(word) && BigInt(word) > 0n ? undefined : `not a non-zero word: ${r}`;
});

/** The Ethereum cases among `names` (tracenode's default network, and the demo chain when `demoAvailable`). */
export function ethCases(names: Set<string>, e: BenchChain, demoAvailable: boolean, recent?: { number: number; gasUsed: number; tx: string }): CaseDef[] {
  const b = e.bench;
  const head = e.head.number;
  const token = b.token;
  const holder = b.holder;
  const holderSlot = balanceSlot(holder);
  const historic = Math.max(3, head - 50); // anvil keeps the state of its last 64 blocks (--prune-history 64)
  // the bench's users: user0 is the holder; all got ALPHA and BETA in block 3
  const users = Array.from({ length: 10 }, (_, i) => benchUser(i));
  if (users[0] !== holder.toLowerCase()) throw new Error(`bench users: user0 ${users[0]} is not the holder ${holder}`);
  const tokenB = e.contracts.tokenB;
  const out: CaseDef[] = [];
  const add = (c: CaseDef) => {
    if (names.has(c.name)) out.push(c);
  };
  add({
    name: 'eth_blockNumber',
    issue: 8,
    network: 'mainnet',
    anvil: true,
    nodeFloor: true,
    body: requestBody('eth_blockNumber', []),
    sanity: onResult((r) => (typeof r === 'string' && Number(r) === head ? undefined : `head ${r}`)),
  });
  add({
    name: 'eth_getStorageAt latest',
    issue: 3,
    network: 'mainnet',
    anvil: true,
    nodeFloor: true,
    body: requestBody('eth_getStorageAt', [token, holderSlot, 'latest']),
    sanity: nonZeroWord,
    note: 'Token.balanceOf[holder] (a mapping slot)',
  });
  add({
    name: 'eth_getStorageAt latest (every control on)',
    issue: 14,
    network: 'controlled',
    anvil: true,
    nodeFloor: true,
    body: requestBody('eth_getStorageAt', [token, holderSlot, 'latest']),
    sanity: nonZeroWord,
    note: `the same call through a key with a secret, Origin/User-Agent/method/contract allowlists, a rate limit and a daily quota (never reached), access log at info; tracenode only (anvil and the floors as above)`,
  });
  add({
    name: 'eth_getStorageAt historic',
    issue: 3,
    network: 'mainnet',
    anvil: true,
    body: requestBody('eth_getStorageAt', [token, holderSlot, hex(historic)]),
    sanity: nonZeroWord,
    note: `block ${historic} = head − 50: anvil keeps only its last 64 states; tracenode reads every block the same way`,
  });
  const storageProofs = (n: number, problem: string) => onResult((r) => (listOf(field(r, 'storageProof'))?.length === n ? undefined : problem));
  add({
    name: 'eth_getProof 1 key',
    issue: 3,
    network: 'mainnet',
    anvil: true,
    body: requestBody('eth_getProof', [token, [holderSlot], 'latest']),
    sanity: storageProofs(1, 'no storage proof'),
  });
  add({
    name: 'eth_getProof 10 keys',
    issue: 3,
    network: 'mainnet',
    anvil: true,
    body: requestBody('eth_getProof', [token, users.map(balanceSlot), 'latest']),
    sanity: storageProofs(10, 'not 10 storage proofs'),
    note: 'ALPHA balances of 10 users',
  });
  add({
    name: 'eth_call view (balanceOf)',
    issue: 4,
    network: 'mainnet',
    anvil: true,
    body: requestBody('eth_call', [{ to: token, data: b.balanceOfCalldata }, 'latest']),
    sanity: nonZeroWord,
  });
  add({
    name: 'eth_call heavy loop',
    issue: 4,
    network: 'mainnet',
    anvil: true,
    body: requestBody('eth_call', [{ to: b.heavyCall.to, data: b.heavyCall.data }, 'latest']),
    sanity: nonZeroWord,
    note: b.heavyCall.note,
  });
  add({
    name: 'eth_call revert',
    issue: 4,
    network: 'mainnet',
    anvil: true,
    body: requestBody('eth_call', [{ from: b.revertingCall.from, to: b.revertingCall.to, data: b.revertingCall.data }, 'latest']),
    sanity: (a) => {
      const error = toAnswer(a)?.error;
      return error?.code === 3 && typeof error.data === 'string' ? undefined : `not a code-3 revert: ${JSON.stringify(a)?.slice(0, 200)}`;
    },
    note: b.revertingCall.note,
  });
  if (demoAvailable) {
    const uncle = '0xc71ebe23438d05f36a8f9312f249291ed500c573322ef17b48b276b9a6a49814';
    add({
      name: 'eth_getUncleByBlockNumberAndIndex (demo chain)',
      issue: 8,
      network: 'demo',
      anvil: false,
      body: requestBody('eth_getUncleByBlockNumberAndIndex', ['0xb', '0x1']),
      sanity: onResult((r) => (field(r, 'hash') === uncle ? undefined : `uncle hash ${field(r, 'hash')}`)),
      note: 'the anvil chain has no uncles: the demo chain (fixtures/demo, block 11, uncle 1) on tracenode, vs the floor only',
    });
  }
  add({
    name: 'trace_transaction (heaviest block)',
    issue: 5,
    network: 'mainnet',
    anvil: true,
    body: requestBody('trace_transaction', [b.heaviestBlockTx]),
    sanity: onResult(nonEmptyList),
  });
  add({
    name: 'trace_block (heaviest block)',
    issue: 5,
    network: 'mainnet',
    anvil: true,
    body: requestBody('trace_block', [hex(b.heaviestBlock)]),
    sanity: onResult(nonEmptyList),
    note: `block ${b.heaviestBlock}, ${b.heaviestBlockGasUsed} gas`,
  });
  if (recent !== undefined) {
    const where = `block ${recent.number}, ${recent.gasUsed} gas: the heaviest of the last 50 blocks, since anvil keeps the state of its last 64 only (the chain's heaviest block, older, it cannot replay)`;
    add({
      name: 'debug_traceTransaction callTracer (recent block)',
      issue: 18,
      network: 'mainnet',
      anvil: true,
      body: requestBody('debug_traceTransaction', [recent.tx, { tracer: 'callTracer' }]),
      sanity: onResult((r) => (typeof r === 'object' && r !== null && 'type' in r && 'gasUsed' in r ? undefined : 'no call frame')),
      note: `${where}; answers of stored blocks are cached (tracing.debugCacheBytes), so after the first request this measures the cache; anvil's top frame differs from geth's in gas and gasUsed (docs/methods.md#debug-tracers), so its answer is reported as different`,
    });
    add({
      name: 'trace_replayBlockTransactions trace+stateDiff (recent block)',
      issue: 18,
      network: 'mainnet',
      anvil: true,
      body: requestBody('trace_replayBlockTransactions', [hex(recent.number), ['trace', 'stateDiff']]),
      sanity: onResult(nonEmptyList),
      note: `${where}; every request replays the block with the state recorder (not cached); anvil also lists calls to precompiles without value, which tracenode omits (docs/methods.md#traces)`,
    });
  }
  // alice (the holder) sends user1 one token unit: the transaction the bench chain is made of.
  const transfer = { from: holder, to: token, data: `0xa9059cbb${users[1].slice(2).padStart(64, '0')}${'1'.padStart(64, '0')}` };
  add({
    name: 'eth_createAccessList (ERC-20 transfer)',
    issue: 18,
    network: 'mainnet',
    anvil: true,
    body: requestBody('eth_createAccessList', [transfer, 'latest']),
    sanity: onResult((r) => ((listOf(field(r, 'accessList'))?.length ?? 0) > 0 ? undefined : 'empty access list')),
    note: "geth's iteration: the call runs until its access list is stable (twice here)",
  });
  add({
    name: 'eth_estimateGas (ERC-20 transfer)',
    issue: 31,
    network: 'mainnet',
    anvil: true,
    body: requestBody('eth_estimateGas', [transfer, 'latest']),
    sanity: onResult((r) => (typeof r === 'string' && /^0x[0-9a-f]+$/.test(r) ? undefined : 'not a quantity')),
    note: "geth's search: a run at the cap, its optimistic guess, then bisection to within 1.5 % (several runs of the call); anvil's own search stops at another limit (about 1 % higher here), so its answer is reported as different",
  });
  add({
    name: 'eth_simulateV1 (ERC-20 transfer)',
    issue: 18,
    network: 'mainnet',
    anvil: true,
    body: requestBody('eth_simulateV1', [{ blockStateCalls: [{ calls: [transfer] }] }, 'latest']),
    sanity: onResult((r) => ((listOf(field(listOf(r)?.[0], 'calls'))?.length ?? 0) === 1 ? undefined : 'not one block with one call')),
    note: 'one simulated block with the transfer; anvil builds the block differently (hashes, roots: docs/peers.md), so its answer is reported as different',
  });
  add({
    name: 'trace_filter (rare address, whole chain)',
    issue: 5,
    network: 'mainnet',
    anvil: true,
    body: requestBody('trace_filter', [{ fromBlock: '0x1', toBlock: hex(head), toAddress: [e.rareAddress] }]),
    // anvil refuses ranges over 300 blocks: it gets the same question as one batch of 300-block
    // windows, and its answers, concatenated in order, must equal tracenode's single answer.
    anvilBody: JSON.stringify(
      Array.from({ length: Math.ceil(head / ANVIL_TRACE_FILTER_RANGE) }, (_, i) => ({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'trace_filter',
        params: [
          { fromBlock: hex(1 + i * ANVIL_TRACE_FILTER_RANGE), toBlock: hex(Math.min(head, (i + 1) * ANVIL_TRACE_FILTER_RANGE)), toAddress: [e.rareAddress] },
        ],
      })),
    ),
    normalizeAnvil: (a) => {
      const batch = toBatch(a);
      if (!batch?.every((x) => Array.isArray(x.result))) return a;
      return { jsonrpc: '2.0', id: 1, result: [...batch].sort((x, y) => Number(x.id) - Number(y.id)).flatMap((x) => listOf(x.result) ?? []) };
    },
    sanity: onResult((r) => {
      const traces = listOf(r);
      if (!traces?.length) return 'empty or not a list';
      const numbers = traces.map((t) => field(t, 'blockNumber')).map((n) => (typeof n === 'number' ? n : Number.NaN));
      const blocks = [...new Set(numbers)].sort((x, y) => x - y);
      return blocks.join() === e.rareBlocks.join() ? undefined : `traces in blocks ${blocks.join()}, expected ${e.rareBlocks.join()}`;
    }),
    note: `toAddress ${e.rareAddress}: ${e.rareBlocks.length} blocks of ${head}; anvil is sent a batch of ${ANVIL_TRACE_FILTER_RANGE}-block windows (its range cap)`,
  });
  add({
    name: 'eth_getLogs (one contract, whole chain)',
    issue: 8,
    network: 'mainnet',
    anvil: true,
    // The factory: one Created log per deployment, spread over the whole chain (~1,300 on 10,000
    // blocks). The token contracts log more than the 10,000-result cap over a chain that long.
    body: requestBody('eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(head), address: e.contracts.factory }]),
    sanity: onResult(nonEmptyList),
    // anvil adds `blockTimestamp` to logs (a newer execution-apis field): ignored if tracenode leaves it out
    normalizeAnvil: (a) => {
      if (!isRecord(a) || !Array.isArray(a.result)) return a;
      const withoutTimestamp = (log: unknown) => {
        if (!isRecord(log)) return log;
        const { blockTimestamp: _t, ...rest } = log;
        return rest;
      };
      return { ...a, result: a.result.map(withoutTimestamp) };
    },
    note: 'Factory: every Created log (one per deployment)',
  });
  // 10 users × 5 reads at latest
  if (names.has('batch of 50')) {
    const batch: unknown[] = [];
    let id = 1;
    for (const u of users) {
      batch.push({ jsonrpc: '2.0', id: id++, method: 'eth_getBalance', params: [u, 'latest'] });
      batch.push({ jsonrpc: '2.0', id: id++, method: 'eth_getTransactionCount', params: [u, 'latest'] });
      batch.push({ jsonrpc: '2.0', id: id++, method: 'eth_getStorageAt', params: [token, balanceSlot(u), 'latest'] });
      batch.push({ jsonrpc: '2.0', id: id++, method: 'eth_getStorageAt', params: [tokenB, balanceSlot(u), 'latest'] });
      batch.push({ jsonrpc: '2.0', id: id++, method: 'eth_call', params: [{ to: token, data: `0x70a08231${u.slice(2).padStart(64, '0')}` }, 'latest'] });
    }
    out.push({
      name: 'batch of 50',
      issue: 8,
      network: 'mainnet',
      anvil: true,
      body: JSON.stringify(batch),
      sanity: (a) => {
        const answers = toBatch(a);
        return answers?.length === 50 && answers.every((x) => 'result' in x) ? undefined : 'not 50 results';
      },
      note: '10 accounts × (eth_getBalance, eth_getTransactionCount, 2 × eth_getStorageAt, eth_call balanceOf) at latest',
    });
  }
  return out;
}

/**
 * The Starknet cases among `names`, on the Starknet bench chain. `firstEvent` is the chain's
 * first event (`starknet_getEvents` with chunk_size 1): the selective case asks for its contract
 * and first key.
 */
export function starknetCases(names: Set<string>, firstEvent: unknown): CaseDef[] {
  const out: CaseDef[] = [];
  const events = (r: unknown) => listOf(field(r, 'events'));
  if (names.has('starknet_getEvents selective')) {
    const address = stringOf(field(firstEvent, 'from_address'));
    const key = stringOf(listOf(field(firstEvent, 'keys'))?.[0]);
    if (address === undefined || key === undefined) throw new Error(`starknet: the first event has no from_address or keys: ${JSON.stringify(firstEvent)}`);
    out.push({
      name: 'starknet_getEvents selective',
      issue: 7,
      network: 'starknet',
      anvil: false,
      body: requestBody('starknet_getEvents', { filter: { address, keys: [[key]], chunk_size: 1024 } }),
      sanity: onResult((r) => ((events(r)?.length ?? 0) > 0 && !field(r, 'continuation_token') ? undefined : 'no events, or more than one page')),
      note: 'the first event’s contract + its keys[0], whole range (the Starknet bench chain, served by tracenode)',
    });
  }
  if (names.has('starknet_getEvents broad (page 1)')) {
    out.push({
      name: 'starknet_getEvents broad (page 1)',
      issue: 7,
      network: 'starknet',
      anvil: false,
      body: requestBody('starknet_getEvents', { filter: { chunk_size: 1024 } }),
      sanity: onResult((r) => (events(r)?.length === 1024 && field(r, 'continuation_token') ? undefined : 'not a full page with a token')),
      note: 'no filter, chunk_size 1024: the first page',
    });
  }
  return out;
}
