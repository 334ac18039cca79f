import { type Block, createBlockHeader } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex, concatBytes, generateAddress, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { builtHeader, loadOpBlocks } from '../../../../test/helpers/opBlocks.js';
import { knownOpChain } from '../../../chain/op/chains.js';
import { decodeDepositTx, encodeDepositTx } from '../../../chain/op/depositTx.js';
import { DepositTransaction, opBlock } from '../../../chain/op/opBlock.js';
import { opCommon, upgradeAt } from '../../../chain/op/rollup.js';
import type { StoredL1Fee, StoredReceipt } from '../../../chain/receipts.js';
import { keccak256 } from '../../../codec/keccak.js';
import { receiptsForDeposits } from './deposits.js';
import { formatBlock } from './formatBlock.js';
import { formatBlockReceipts } from './formatReceipt.js';
import { effectiveGasPrice, effectiveGasTip, formatBlockTransaction, formatTransaction } from './formatTransaction.js';
import { RenderedByBlock } from './rendered.js';

// Deposits and OP receipt fields as op-geth prints them (ethereum-optimism/op-geth
// 7b56c731573a32af0beedc5f38dbe7ca9d96630a, internal/ethapi/api.go: newRPCTransaction,
// marshalReceipt), the operator fee as op-reth adds it. Every expected value is a real chain's, or
// a peer's own test's, named where it is used.

const hex = (s: string) => hexToBytes(s as `0x${string}`);
const q = (n: bigint) => `0x${n.toString(16)}`;

/** An OP block of `chainId` (a known chain) at `number` and `timestamp`, holding `raws` (EIP-2718 bytes). */
function blockOf(chainId: bigint, number: bigint, timestamp: bigint, raws: Uint8Array[]): Block {
  const rollup = knownOpChain(chainId)!.rollup;
  const header = createBlockHeader(
    { number, timestamp, gasLimit: 30_000_000n, baseFeePerGas: 1_000_000n },
    { common: opCommon(rollup, upgradeAt(rollup, timestamp)) },
  );
  return opBlock(header, raws);
}

const receipt = (extra: Partial<StoredReceipt> = {}): StoredReceipt => ({
  statusOrRoot: Uint8Array.of(1),
  cumulativeGasUsed: 50_000n,
  gasUsed: 50_000n,
  logs: [],
  ...extra,
});

/** The L1 attributes of an Ecotone-format L1-info deposit's calldata (the OP specification's `setL1BlockValuesEcotone`). */
function l1Info(data: Uint8Array) {
  const n = (from: number, to: number) => BigInt(bytesToHex(data.subarray(from, to)));
  return {
    baseFeeScalar: n(4, 8),
    blobBaseFeeScalar: n(8, 12),
    sequence: data.subarray(12, 20),
    l1BaseFee: n(36, 68),
    blobBaseFee: n(68, 100),
    l1Hash: data.subarray(100, 132),
  };
}

/** The OP specification's source hash of an L1-info deposit: keccak(bytes32(1) ‖ keccak(l1BlockHash ‖ bytes32(sequenceNumber))). */
function l1InfoSourceHash(data: Uint8Array): string {
  const { l1Hash, sequence } = l1Info(data);
  return bytesToHex(keccak256(concatBytes(setLengthLeft(Uint8Array.of(1), 32), keccak256(concatBytes(l1Hash, setLengthLeft(sequence, 32))))));
}

// base/base 98a8db8dee5b2bb9f60bb012a74ca99017435923, crates/execution/rpc/src/eth/receipt.rs
// (`mod test`): OP Mainnet block 124,665,056 (timestamp 1724928889, Fjord), transactions 0 (the
// L1-info deposit, 0x312e290c…) and 1 (0x1059e800…), and Base block 21,713,817 (timestamp
// 1730216981): its L1-info deposit (0x510fd4c4…) and transaction 0xf9420cba…; the hashes are the
// explorers' links beside them.
const OP_124665056_TX0 = hex(
  '0x7ef8f8a0683079df94aa5b9cf86687d739a60a9b4f0835e520ec4d664e2e415dca17a6df94deaddeaddeaddeaddeaddeaddeaddeaddead0001944200000000000000000000' +
    '0000000000000000158080830f424080b8a4440a5e200000146b000f79c500000000000000040000000066d052e700000000013ad8a300000000000000000000000000000000' +
    '0000000000000000000000003ef1278700000000000000000000000000000000000000000000000000000000000000012fdf87b89884a61e74b322bbcf60386f543bfae78277' +
    '25efaaf0ab1de2294a590000000000000000000000006887246668a3b87f54deb3b94ba47a6f63f32985',
);
const OP_124665056_TX1 = hex(
  '0x02f904940a8303fba78401d6d2798401db2b6d830493e0943e6f4f7866654c18f536170780344aa8772950b680b904246a761202000000000000000000000000087000a300' +
    'de7200382b55d40045000000e5d60e00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000' +
    '00000000000000014000000000000000000000000000000000000000000000000000000000000000010000000000000000000000000000000000000000000000000000000000' +
    '00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000' +
    '00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000' +
    '00000000000000000000000000000000000000000003a0000000000000000000000000000000000000000000000000000000000000022482ad56cb0000000000000000000000' +
    '00000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000' +
    '0000000000000000000000000000400000000000000000000000000000000000000000000000000000000000000120000000000000000000000000dc6ff44d5d932cbd77b52e' +
    '5612ba0529dc6226f100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000' +
    '0000600000000000000000000000000000000000000000000000000000000000000044095ea7b300000000000000000000000021c4928109acb0659a88ae5329b5374a302469' +
    '4c0000000000000000000000000000000000000000000000049b9ca9a69434000000000000000000000000000000000000000000000000000000000000000000000000000000' +
    '00000021c4928109acb0659a88ae5329b5374a3024694c0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000' +
    '00000000000000000000000000000000600000000000000000000000000000000000000000000000000000000000000024b6b55f250000000000000000000000000000000000' +
    '000000000000049b9ca9a69434000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000' +
    '0000000000000000000000000000000000000000000000000000000000000000415ec214a3950bea839a7e6fbb0ba1540ac2076acd50820e2d5ef83d0902cdffb24a47aff7de' +
    '5190290769c4f0a9c6fabf63012986a0d590b1b571547a8c7050ea1b00000000000000000000000000000000000000000000000000000000000000c080a06db770e6e25a617f' +
    'e9652f0958bd9bd6e49281a53036906386ed39ec48eadf63a07f47cf51a4a40b4494cf26efc686709a9b03939e20ee27e59682f5faa536667e',
);
const BASE_21713817_SYSTEM = hex(
  '0x7ef8f8a0389e292420bcbf9330741f72074e39562a09ff5a00fd22e4e9eee7e34b81bca494deaddeaddeaddeaddeaddeaddeaddeaddead0001944200000000000000000000' +
    '0000000000000000158080830f424080b8a4440a5e20000008dd00101c120000000000000004000000006721035b000000000141899600000000000000000000000000000000' +
    '00000000000000000000000349b4dcdc000000000000000000000000000000000000000000000000000000004ef9325cc5991ce750960f636ca2ffbb6e209bb3ba91412f21dd' +
    '78c14ff154d1930f1f9a0000000000000000000000005050f69a9786f081509234f1a7f4684b5e5b76c9',
);
const BASE_21713817_TX = hex(
  '0x02f86c8221058034839a4ae283021528942f16386bb37709016023232523ff6d9daf444be380841249c58bc080a001b927eda2af9b00b52a57be0885e0303c39dd2831732e' +
    '14051c2336470fd468a0681bf120baf562915841a48601c2b54a6742511e535cf8f71c95115af7ff63bd',
);

/** A Fjord L1 fee as the executor stores it, from the block's L1-info deposit and the receipt's fee and L1 gas. */
function fjordFee(l1InfoDeposit: Uint8Array, fee: bigint, gasUsed: bigint): StoredL1Fee {
  const info = l1Info(decodeDepositTx(l1InfoDeposit).data);
  return {
    rules: 'fjord',
    fee,
    gasUsed,
    l1BaseFee: info.l1BaseFee,
    overhead: 0n,
    scalar: 0n,
    l1BlobBaseFee: info.blobBaseFee,
    baseFeeScalar: info.baseFeeScalar,
    blobBaseFeeScalar: info.blobBaseFeeScalar,
  };
}

describe('a deposit on the wire (op-geth newRPCTransaction)', () => {
  it("Base block 26,293,517's L1-info deposit, as a node answered it", () => {
    // alloy-rs/op-alloy a93a08a021e80db8133f5f7fdccbb5639bc68d45, crates/consensus/src/alloy_compat.rs
    // (`test_tx_deposit`): a node's eth_getTransactionByHash answer, without blockTimestamp (older
    // than the field). It printed "mint": "0x0", as op-reth does; op-geth omits a zero mint (its
    // DepositTx holds it as nil, `rlp:"nil"`), as tracenode does.
    const json = {
      blockHash: '0x2c475c5d2d609929cec7be9caaaebd29be53e4ef21b1f7b897cb954469e20d01',
      blockNumber: '0x191350d',
      depositReceiptVersion: '0x1',
      from: '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001',
      gas: '0xf4240',
      gasPrice: '0x0',
      hash: '0x096c03d72acb06339c9c7860d1c36b6451932ec0ff16fd34aa9e30a73a245e13',
      input:
        '0x440a5e20000008dd00101c1200000000000000030000000067acc63f00000000014d1f2d000000000000000000000000000000000000000000000000000000005ba4c0eb' +
        '00000000000000000000000000000000000000000000000000000001ce2291bdcbb8f62c15343b39cfacdbf81c4747822ebb16c2518126e47d984422a82defc1000000000000' +
        '0000000000005050f69a9786f081509234f1a7f4684b5e5b76c9',
      nonce: '0x191350e',
      r: '0x0',
      s: '0x0',
      sourceHash: '0x990d7122a1f121f3a6bc45723e28f4921c269037a77e77ffee3c8585136d1a92',
      to: '0x4200000000000000000000000000000000000015',
      transactionIndex: '0x0',
      type: '0x7e',
      v: '0x0',
      value: '0x0',
    };
    const raw = encodeDepositTx({
      sourceHash: hex(json.sourceHash),
      from: hex(json.from),
      to: hex(json.to),
      mint: 0n,
      value: 0n,
      gasLimit: BigInt(json.gas),
      isSystemTx: false,
      data: hex(json.input),
    });
    expect(bytesToHex(keccak256(raw))).toBe(json.hash);
    expect(l1InfoSourceHash(hex(json.input))).toBe(json.sourceHash);
    const block = blockOf(8453n, BigInt(json.blockNumber), 1_739_376_381n, [raw]);
    const out = formatBlockTransaction(block, 0, [receipt({ depositNonce: BigInt(json.nonce), depositReceiptVersion: 1n })]);
    expect(out).toEqual({ ...json, blockHash: bytesToHex(block.hash()), blockTimestamp: q(block.header.timestamp) });
  });

  it('the real blocks: the L1-info deposit as op-geth prints one after Regolith; their other transactions as before', () => {
    for (const b of loadOpBlocks()) {
      const raws = b.fixture.executing_payload.transactions.map(hex);
      const block = opBlock(builtHeader(b), raws);
      const receipts = raws.map((_, i) => receipt(i === 0 ? { depositNonce: 1000n, depositReceiptVersion: 1n } : {}));
      const deposit = formatBlockTransaction(block, 0, receipts)!;
      const data = decodeDepositTx(raws[0]).data;
      expect(deposit, b.file).toEqual({
        blockHash: bytesToHex(block.hash()),
        blockNumber: q(b.number),
        blockTimestamp: b.fixture.executing_payload.timestamp,
        from: '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001',
        gas: '0xf4240',
        gasPrice: '0x0',
        hash: bytesToHex(keccak256(raws[0])),
        input: bytesToHex(data),
        nonce: '0x3e8',
        to: '0x4200000000000000000000000000000000000015',
        transactionIndex: '0x0',
        value: '0x0',
        type: '0x7e',
        v: '0x0',
        r: '0x0',
        s: '0x0',
        sourceHash: l1InfoSourceHash(data),
        depositReceiptVersion: '0x1',
      });
      const full = formatBlock(block, true, undefined, receipts).transactions!;
      expect(full[0]).toEqual(deposit);
      for (let i = 1; i < raws.length; i++) {
        const tx = block.transactions[i] as TypedTransaction;
        const at = {
          blockHash: block.hash(),
          blockNumber: b.number,
          blockTimestamp: block.header.timestamp,
          baseFeePerGas: block.header.baseFeePerGas,
          index: i,
        };
        expect(formatBlockTransaction(block, i, receipts), `${b.file} #${i}`).toEqual(formatTransaction(tx, at));
        expect(full[i]).toEqual(formatTransaction(tx, at));
        expect((full[i] as { chainId?: string }).chainId).toBe(q(BigInt(b.fixture.rollup_config.l2_chain_id)));
        expect(full[i]).not.toHaveProperty('sourceHash');
      }
    }
  });

  it("OP Mainnet block 124,665,056's L1-info deposit hashes to 0x312e290c…", () => {
    const block = blockOf(10n, 124_665_056n, 1_724_928_889n, [OP_124665056_TX0, OP_124665056_TX1]);
    const out = formatBlockTransaction(block, 0, [receipt({ depositNonce: 5n }), receipt()])!;
    expect(out.hash).toBe('0x312e290cf36df704a2217b015d6455396830b0ce678b860ebfcc30f41403d7b1');
    expect(out.sourceHash).toBe(l1InfoSourceHash(decodeDepositTx(OP_124665056_TX0).data));
    expect(out.nonce).toBe('0x5');
    expect(out).not.toHaveProperty('depositReceiptVersion');
    expect(formatBlockTransaction(block, 1, [])!.hash).toBe('0x1059e8004daff32caa1f1b1ef97fe3a07a8cf40508f5b835b66d9420d87c4a4a');
  });

  // op-geth's own tests (internal/ethapi/api_test.go, TestNewRPCTransactionDepositTx,
  // TestRPCTransactionDepositTxWithVersion, TestNewRPCTransactionOmitIsSystemTxFalse): a system
  // deposit minting 34, source hash 0x…1234, its receipt's nonce 7 (and version 1).
  const sourceHash = setLengthLeft(hex('0x1234'), 32);
  const opGethDeposit = (isSystemTx: boolean) =>
    encodeDepositTx({ sourceHash, from: new Uint8Array(20), to: undefined, mint: 34n, value: 0n, gasLimit: 0n, isSystemTx, data: new Uint8Array() });
  it("op-geth's test: a system deposit shows its mint and isSystemTx, nonce from the receipt", () => {
    const block = blockOf(10n, 12n, 1_746_806_401n, [opGethDeposit(true)]);
    const out = formatBlockTransaction(block, 0, [receipt({ depositNonce: 7n, depositReceiptVersion: 1n })])!;
    expect(out).toMatchObject({ gasPrice: '0x0', v: '0x0', r: '0x0', s: '0x0', sourceHash: bytesToHex(sourceHash), isSystemTx: true, mint: '0x22' });
    expect(out).toMatchObject({ nonce: '0x7', depositReceiptVersion: '0x1', to: null, type: '0x7e' });
    for (const absent of ['chainId', 'yParity', 'accessList', 'maxFeePerGas', 'maxPriorityFeePerGas']) expect(out).not.toHaveProperty(absent);
    expect(JSON.parse(JSON.stringify(out)).depositReceiptVersion).toBe('0x1');
  });
  it("op-geth's test: isSystemTx false is omitted; without a receipt the nonce is 0", () => {
    const block = blockOf(10n, 12n, 1_746_806_401n, [opGethDeposit(false)]);
    const out = formatBlockTransaction(block, 0)!;
    expect(out).not.toHaveProperty('isSystemTx');
    expect(out).not.toHaveProperty('depositReceiptVersion');
    expect(out.nonce).toBe('0x0');
  });
});

describe('OP receipts on the wire (op-geth marshalReceipt, op-reth l1_block_info)', () => {
  it("Fjord: OP Mainnet block 124,665,056's transaction 1 (op-reth's test)", () => {
    const block = blockOf(10n, 124_665_056n, 1_724_928_889n, [OP_124665056_TX0, OP_124665056_TX1]);
    const stored = [
      receipt({ gasUsed: 43_887n, cumulativeGasUsed: 43_887n, depositNonce: 9n, depositReceiptVersion: 1n }),
      receipt({ gasUsed: 200_000n, cumulativeGasUsed: 243_887n, l1Fee: fjordFee(OP_124665056_TX0, 24_681_034_813n, 4471n) }),
    ];
    const [deposit, ordinary] = formatBlockReceipts(block, stored);
    expect(ordinary).toMatchObject({
      transactionHash: '0x1059e8004daff32caa1f1b1ef97fe3a07a8cf40508f5b835b66d9420d87c4a4a',
      type: '0x2',
      l1GasPrice: q(1_055_991_687n),
      l1GasUsed: q(4471n),
      l1Fee: q(24_681_034_813n),
      l1BaseFeeScalar: q(5227n),
      l1BlobBaseFee: '0x1',
      l1BlobBaseFeeScalar: q(1_014_213n),
    });
    for (const absent of ['l1FeeScalar', 'operatorFeeScalar', 'operatorFeeConstant', 'depositNonce']) expect(ordinary).not.toHaveProperty(absent);
    expect(deposit).toMatchObject({
      from: '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001',
      to: '0x4200000000000000000000000000000000000015',
      type: '0x7e',
      effectiveGasPrice: '0x0',
      contractAddress: null,
      depositNonce: '0x9',
      depositReceiptVersion: '0x1',
    });
    for (const absent of ['l1Fee', 'l1GasPrice', 'l1GasUsed']) expect(deposit).not.toHaveProperty(absent);
  });

  it("Fjord: Base block 21,713,817's transaction 0xf9420cba… (op-reth's base_receipt_gas_fields)", () => {
    const block = blockOf(8453n, 21_713_817n, 1_730_216_981n, [BASE_21713817_SYSTEM, BASE_21713817_TX]);
    const stored = [receipt({ depositNonce: 1n, depositReceiptVersion: 1n }), receipt({ l1Fee: fjordFee(BASE_21713817_SYSTEM, 191_150_293_412n, 1600n) })];
    expect(formatBlockReceipts(block, stored)[1]).toMatchObject({
      transactionHash: '0xf9420cbaf66a2dda75a015488d37262cbfd4abd0aad7bb2be8a63e14b1fa7a94',
      l1GasPrice: q(14_121_491_676n),
      l1GasUsed: q(1600n),
      l1Fee: q(191_150_293_412n),
      l1BaseFeeScalar: q(2269n),
      l1BlobBaseFee: q(1_324_954_204n),
      l1BlobBaseFeeScalar: q(1_055_762n),
    });
  });

  it('Isthmus: the operator fee parameters when either is not 0 (op-reth: scalar 0 and constant 2 shown, both 0 left out)', () => {
    const block = blockOf(10n, 124_665_056n, 1_724_928_889n, [OP_124665056_TX0, OP_124665056_TX1]);
    const l1Fee = fjordFee(OP_124665056_TX0, 24_681_034_813n, 4471n);
    const withOperator = (scalar: bigint, constant: bigint) =>
      formatBlockReceipts(block, [receipt({ depositNonce: 9n }), receipt({ l1Fee, operatorFee: { scalar, constant } })])[1];
    expect(withOperator(0n, 2n)).toMatchObject({ operatorFeeScalar: '0x0', operatorFeeConstant: '0x2' });
    expect(withOperator(0n, 0n)).not.toHaveProperty('operatorFeeScalar');
    expect(withOperator(0n, 0n)).not.toHaveProperty('operatorFeeConstant');
  });

  it("Regolith: OP Mainnet block 0x6c9e503's receipt 0x43714495… (a node's answer) with l1FeeScalar 0.684", () => {
    // quiknode-labs/quickalerts-examples cfa9e8901e3fd63a9af7cb1533aaa7e912791d34,
    // examples/eas-attestations.md: l1GasPrice 0x46d67f742, l1GasUsed 0x2170, l1Fee 0x65426a26229f,
    // l1FeeScalar "0.684" (OP Mainnet's scalar 684000, overhead 188: fee = 0x2170 × 0x46d67f742 ×
    // 0.684). Its transaction's bytes are not given: OP Mainnet's transaction 1 above carries the fields.
    const block = blockOf(10n, 124_665_056n, 1_724_928_889n, [OP_124665056_TX0, OP_124665056_TX1]);
    const l1Fee: StoredL1Fee = {
      rules: 'regolith',
      fee: 0x65426a26229fn,
      gasUsed: 0x2170n,
      l1BaseFee: 0x46d67f742n,
      overhead: 188n,
      scalar: 684_000n,
      l1BlobBaseFee: 0n,
      baseFeeScalar: 0n,
      blobBaseFeeScalar: 0n,
    };
    const out = formatBlockReceipts(block, [receipt({ depositNonce: 9n }), receipt({ l1Fee })])[1];
    expect(out).toMatchObject({ l1Fee: '0x65426a26229f', l1FeeScalar: '0.684', l1GasPrice: '0x46d67f742', l1GasUsed: '0x2170' });
    for (const absent of ['l1BlobBaseFee', 'l1BaseFeeScalar', 'l1BlobBaseFeeScalar']) expect(out).not.toHaveProperty(absent);
  });

  it('a deposit creating a contract: the stored contract address, its nonce and version, price 0; none for a failed one', () => {
    const from = hex('0x976ea74026e726554db657fa54763abd0c3a0aa9');
    const raw = encodeDepositTx({
      sourceHash: keccak256(from),
      from,
      to: undefined,
      mint: 10n ** 18n,
      value: 0n,
      gasLimit: 300_000n,
      isSystemTx: false,
      data: hex('0x6000'),
    });
    const block = blockOf(10n, 130_000_000n, 1_746_806_401n, [OP_124665056_TX0, raw]);
    // op-geth derives a deposit's contract address from its sender and its nonce before it (CreateAddress(from, depositNonce)).
    const created = generateAddress(from, Uint8Array.of(4));
    const stored = [
      receipt({ depositNonce: 77n, depositReceiptVersion: 1n }),
      receipt({ depositNonce: 4n, depositReceiptVersion: 1n, contractAddress: created }),
    ];
    const out = formatBlockReceipts(block, stored)[1];
    expect(out).toMatchObject({
      from: bytesToHex(from),
      to: null,
      type: '0x7e',
      effectiveGasPrice: '0x0',
      contractAddress: bytesToHex(created),
      depositNonce: '0x4',
      depositReceiptVersion: '0x1',
    });
    const failed = formatBlockReceipts(block, [stored[0], receipt({ statusOrRoot: Uint8Array.of(0), depositNonce: 4n, depositReceiptVersion: 1n })])[1];
    expect(failed.contractAddress).toBeNull();
    const bedrock = formatBlockReceipts(block, [stored[0], receipt({ contractAddress: created })])[1];
    expect(bedrock).not.toHaveProperty('depositNonce');
    expect(bedrock).not.toHaveProperty('depositReceiptVersion');
    expect(formatBlockTransaction(block, 1, stored)).toMatchObject({ mint: '0xde0b6b3a7640000', nonce: '0x4', to: null });
  });
});

describe('receipts for deposits, kept renderings, fees', () => {
  const opBlockOf = () => blockOf(10n, 124_665_056n, 1_724_928_889n, [OP_124665056_TX0, OP_124665056_TX1]);
  const counting = (receipts: StoredReceipt[]) => {
    const store = {
      reads: 0,
      receipts: async () => {
        store.reads++;
        return receipts;
      },
    };
    return store;
  };

  it('read only for a block (or a transaction) that is a deposit', async () => {
    const stored = [receipt({ depositNonce: 3n }), receipt()];
    const store = counting(stored);
    const block = opBlockOf();
    const ethereum = opBlock(block.header, [OP_124665056_TX1]);
    expect(await receiptsForDeposits(store, ethereum)).toBeUndefined();
    expect(await receiptsForDeposits(store, block, 1)).toBeUndefined();
    expect(await receiptsForDeposits(store, block, 2)).toBeUndefined();
    expect(store.reads).toBe(0);
    expect(await receiptsForDeposits(store, block)).toBe(stored);
    expect(await receiptsForDeposits(store, block, 0)).toBe(stored);
    expect(store.reads).toBe(2);
  });

  it("a block's kept rendering in full carries its deposits' nonces", () => {
    const block = opBlockOf();
    const kept = new RenderedByBlock<ReturnType<typeof formatBlock>>(1 << 20, () => 1000);
    const stored = [receipt({ depositNonce: 3n, depositReceiptVersion: 1n }), receipt()];
    const first = formatBlock(block, true, kept, stored);
    expect(first.transactions![0]).toMatchObject({ nonce: '0x3', depositReceiptVersion: '0x1' });
    expect(formatBlock(block, true, kept, stored)).toBe(first);
    expect(formatBlock(block, false, kept).transactions).toEqual([
      '0x312e290cf36df704a2217b015d6455396830b0ce678b860ebfcc30f41403d7b1',
      '0x1059e8004daff32caa1f1b1ef97fe3a07a8cf40508f5b835b66d9420d87c4a4a',
    ]);
  });

  it('a deposit pays no price and no tip (op-geth), so the fee oracles can read OP blocks', () => {
    const deposit = opBlockOf().transactions[0] as unknown as DepositTransaction;
    expect(deposit).toBeInstanceOf(DepositTransaction);
    expect(effectiveGasPrice(deposit, 1_000_000n)).toBe(0n);
    expect(effectiveGasTip(deposit, 1_000_000n)).toBe(0n);
    expect(effectiveGasTip(deposit, undefined)).toBe(0n);
  });
});
