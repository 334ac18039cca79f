import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Block } from '@ethereumjs/block';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { bigIntToBytes, bytesToHex, concatBytes, createAddressFromPrivateKey, generateAddress, generateAddress2, hexToBytes } from '@ethereumjs/util';
import { buildBlock, createVM } from '@ethereumjs/vm';
import { checkGenesis, createChainCommon, createGenesis, type GethGenesis } from '../../src/chain/genesis.js';

/**
 * A small London proof-of-work chain built with @ethereumjs/vm, whose contracts are hand-written
 * bytecode so that every trace can be checked by hand: nested CALL/STATICCALL/DELEGATECALL/
 * CALLCODE, precompile calls with and without value, a revert and an out-of-gas at depth, a
 * SELFDESTRUCT in a later transaction than the contract's creation, CREATE/CREATE2 (one
 * reverting), failed root frames, a plain transfer and creation transactions.
 *
 * The execution-apis chain has no internal calls at all, hence this one. Written to a folder as
 * `genesis.json` + `chain.rlp`, so it is imported like any fixture.
 */

// ---- a tiny assembler (London: no PUSH0) ----
const OP = {
  STOP: 0x00,
  MSTORE: 0x52,
  MSTORE8: 0x53,
  JUMP: 0x56,
  JUMPDEST: 0x5b,
  POP: 0x50,
  CREATE: 0xf0,
  CALL: 0xf1,
  CALLCODE: 0xf2,
  RETURN: 0xf3,
  DELEGATECALL: 0xf4,
  CREATE2: 0xf5,
  STATICCALL: 0xfa,
  REVERT: 0xfd,
  INVALID: 0xfe,
  SELFDESTRUCT: 0xff,
} as const;
type Op = keyof typeof OP;
type Piece = Op | { push: bigint | Uint8Array; width?: number };

function asm(...pieces: Piece[]): Uint8Array {
  const out: number[] = [];
  for (const p of pieces) {
    if (typeof p === 'string') {
      out.push(OP[p]);
      continue;
    }
    const raw = typeof p.push === 'bigint' ? (p.push === 0n ? Uint8Array.of(0) : bigIntToBytes(p.push)) : p.push;
    const width = p.width ?? raw.length;
    const bytes = new Uint8Array(width);
    bytes.set(raw, width - raw.length);
    out.push(0x5f + width, ...bytes);
  }
  return Uint8Array.from(out);
}
const push = (value: bigint | number | Uint8Array, width?: number): Piece => ({ push: typeof value === 'number' ? BigInt(value) : value, width });

/** CALL/CALLCODE with explicit gas and value; memory in [inOff, inOff+inLen), output discarded. */
function callWithValue(op: 'CALL' | 'CALLCODE', gas: number, to: Uint8Array, value: number, inOff = 0, inLen = 0): Piece[] {
  return [push(0), push(0), push(inLen), push(inOff), push(value), push(to, 20), push(gas), op, 'POP'];
}
/** STATICCALL/DELEGATECALL with explicit gas. */
function callNoValue(op: 'STATICCALL' | 'DELEGATECALL', gas: number, to: Uint8Array, inOff = 0, inLen = 0): Piece[] {
  return [push(0), push(0), push(inLen), push(inOff), push(to, 20), push(gas), op, 'POP'];
}

const contract = (n: number) => hexToBytes(`0x${n.toString(16).padStart(40, '0')}`);

/** Addresses and code of the demo chain. */
export const DEMO = {
  senderKey: hexToBytes(`0x${'45'.repeat(32)}`),
  miner: hexToBytes('0x00000000000000000000000000000000000000aa'),
  router: contract(0xc1),
  ret42: contract(0xc2),
  nester: contract(0xc3),
  lib: contract(0xc4),
  reverter: contract(0xc6),
  looper: contract(0xc7),
  badJump: contract(0xc8),
  suicide: contract(0xc9),
  failer: contract(0xca),
  factory: contract(0xcb),
  beneficiary: hexToBytes('0x00000000000000000000000000000000000000be'),
  eoa: hexToBytes('0x00000000000000000000000000000000000000e0'),
  identity: contract(0x04),
  /** Init code deploying the one-byte runtime `0x00`: 18 gas of execution + 200 deposit. */
  init: asm(push(0), push(0), 'MSTORE8', push(1), push(0), 'RETURN'),
  /** Init code that reverts with no data: 6 gas. */
  revertingInit: asm(push(0), push(0), 'REVERT'),
  salt: 1n,
  suicideBalance: 1000n,
  gasPrice: 2_000_000_000n,
};
export const SENDER = createAddressFromPrivateKey(DEMO.senderKey).bytes;

const RET42 = asm(push(0x2a), push(0), 'MSTORE', push(0x20), push(0), 'RETURN'); // 18 gas
const REVERTER = asm(push(0xdead, 2), push(0), 'MSTORE', push(2), push(30), 'REVERT'); // 18 gas, data 0xdead
const LOOPER = asm('JUMPDEST', push(0), 'JUMP');
const BAD_JUMP = asm(push(3), 'JUMP');
const SUICIDE = asm(push(DEMO.beneficiary, 20), 'SELFDESTRUCT'); // 3 + 5000 + 2600 (cold beneficiary)
const NESTER = asm(...callNoValue('STATICCALL', 5000, DEMO.ret42)); // 18 + 100 (warm) + 18 + 2
const FAILER = asm(...callWithValue('CALL', 10_000, DEMO.ret42, 0), 'INVALID');
const initWord = (init: Uint8Array) => [push(init, init.length), push(0), 'MSTORE'] as Piece[];
// CREATE, CREATE2 (salt 1), then a CREATE whose init code reverts; init code right-aligned in word 0.
const FACTORY = asm(
  ...initWord(DEMO.init),
  push(DEMO.init.length),
  push(32 - DEMO.init.length),
  push(0),
  'CREATE',
  'POP',
  push(DEMO.salt),
  push(DEMO.init.length),
  push(32 - DEMO.init.length),
  push(0),
  'CREATE2',
  'POP',
  ...initWord(DEMO.revertingInit),
  push(DEMO.revertingInit.length),
  push(32 - DEMO.revertingInit.length),
  push(0),
  'CREATE',
  'POP',
  'STOP',
);
const ROUTER = asm(
  ...callWithValue('CALL', 10_000, DEMO.ret42, 0),
  ...callNoValue('STATICCALL', 10_000, DEMO.ret42),
  ...callNoValue('DELEGATECALL', 10_000, DEMO.lib),
  ...callWithValue('CALLCODE', 10_000, DEMO.lib, 1),
  ...callNoValue('STATICCALL', 10_000, DEMO.identity, 0, 32), // zero value: omitted from traces
  ...callWithValue('CALL', 10_000, DEMO.identity, 1, 0, 32), // carries value: kept
  ...callWithValue('CALL', 20_000, DEMO.nester, 0),
  ...callWithValue('CALL', 10_000, DEMO.reverter, 0),
  ...callWithValue('CALL', 5_000, DEMO.looper, 0),
  ...callWithValue('CALL', 10_000, DEMO.suicide, 0),
  ...callWithValue('CALL', 0, DEMO.eoa, 1), // gets the 2300 stipend
  ...callWithValue('CALL', 200_000, DEMO.factory, 0),
  'STOP',
);

/** Where the factory's creations land (its nonce starts at 1; CREATE2 also bumps it). */
export const FACTORY_CREATED = {
  create: generateAddress(DEMO.factory, bigIntToBytes(1n)),
  create2: generateAddress2(DEMO.factory, setLength32(bigIntToBytes(DEMO.salt)), DEMO.init),
  reverted: generateAddress(DEMO.factory, bigIntToBytes(3n)),
};
function setLength32(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(b, 32 - b.length);
  return out;
}

const hex = (b: Uint8Array) => bytesToHex(b);

/** A London proof-of-work genesis (every fork to London at block 0) with chain id `chainId` and `alloc`. */
export function londonPowGenesis(chainId: number, alloc: Record<string, unknown>): GethGenesis {
  return checkGenesis({
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
      berlinBlock: 0,
      londonBlock: 0,
      ethash: {},
    },
    nonce: '0x0',
    timestamp: '0x0',
    extraData: '0x',
    gasLimit: '0x1c9c380',
    difficulty: '0x20000',
    mixHash: `0x${'00'.repeat(32)}`,
    coinbase: `0x${'00'.repeat(20)}`,
    baseFeePerGas: '0x3b9aca00',
    alloc,
  });
}

function genesisJson(): GethGenesis {
  const code = (c: Uint8Array, balance = 0n, nonce = 0n) => ({ code: hex(c), balance: `0x${balance.toString(16)}`, nonce: `0x${nonce.toString(16)}` });
  return londonPowGenesis(1337, {
    [hex(SENDER)]: { balance: '0x3635c9adc5dea00000' },
    [hex(DEMO.beneficiary)]: { balance: '0x1' },
    [hex(DEMO.router)]: code(ROUTER),
    [hex(DEMO.factory)]: code(FACTORY, 0n, 1n),
    [hex(DEMO.ret42)]: code(RET42),
    [hex(DEMO.nester)]: code(NESTER),
    [hex(DEMO.lib)]: code(asm('STOP')),
    [hex(DEMO.reverter)]: code(REVERTER),
    [hex(DEMO.looper)]: code(LOOPER),
    [hex(DEMO.badJump)]: code(BAD_JUMP),
    [hex(DEMO.suicide)]: code(SUICIDE, DEMO.suicideBalance),
    [hex(DEMO.failer)]: code(FAILER),
  });
}

/** One transaction of the demo chain, with what the tests need to know about it. */
export interface DemoTx {
  name: string;
  block: number;
  tx: TypedTransaction;
}

/**
 * Builds the chain into `dir` (`genesis.json`, `chain.rlp`) and lists its transactions.
 * Block 1: router (value 5), bad jump at the root, INVALID after a successful sub-call.
 * Block 2: plain transfer, creation transaction, reverting creation transaction.
 * Block 3: no transactions (reward only). Block 4: a call to the self-destructed contract.
 */
export async function buildDemoChain(dir: string): Promise<DemoTx[]> {
  const genesis = genesisJson();
  const common = await createChainCommon(genesis);
  const { block: genesisBlock, state } = await createGenesis(genesis, common);
  const stateManager = new MerkleStateManager({ common });
  await stateManager.generateCanonicalGenesis(state);
  const vm = await createVM({ common, stateManager });

  let nonce = 0n;
  const tx = (to: Uint8Array | undefined, value: bigint, data: Uint8Array, gasLimit: bigint) =>
    createLegacyTx({ nonce: nonce++, gasPrice: DEMO.gasPrice, gasLimit, to, value, data }, { common }).sign(DEMO.senderKey);

  const plan: Array<Array<{ name: string; tx: TypedTransaction }>> = [
    [
      { name: 'router', tx: tx(DEMO.router, 5n, new Uint8Array(), 1_000_000n) },
      { name: 'badJump', tx: tx(DEMO.badJump, 0n, new Uint8Array(), 50_000n) },
      { name: 'failer', tx: tx(DEMO.failer, 0n, new Uint8Array(), 60_000n) },
    ],
    [
      { name: 'transfer', tx: tx(DEMO.eoa, 7n, new Uint8Array(), 21_000n) },
      { name: 'create', tx: tx(undefined, 0n, DEMO.init, 100_000n) },
      { name: 'createReverts', tx: tx(undefined, 0n, DEMO.revertingInit, 100_000n) },
    ],
    [],
    [{ name: 'callDestroyed', tx: tx(DEMO.suicide, 0n, Uint8Array.of(0xab), 30_000n) }],
  ];

  const blocks: Block[] = [];
  const txs: DemoTx[] = [];
  let parent = genesisBlock;
  for (const [i, entries] of plan.entries()) {
    const builder = await buildBlock(vm, {
      parentBlock: parent,
      headerData: { timestamp: parent.header.timestamp + 12n, coinbase: DEMO.miner, gasLimit: parent.header.gasLimit },
      blockOpts: { calcDifficultyFromHeader: parent.header, putBlockIntoBlockchain: false },
    });
    for (const entry of entries) {
      await builder.addTransaction(entry.tx);
      txs.push({ name: entry.name, block: i + 1, tx: entry.tx });
    }
    const { block } = await builder.build();
    blocks.push(block);
    parent = block;
  }
  writeFileSync(join(dir, 'genesis.json'), JSON.stringify(genesis));
  writeFileSync(join(dir, 'chain.rlp'), concatBytes(...blocks.map((b) => b.serialize())));
  return txs;
}
