import { createBlock } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, concatBytes } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { describe, expect, it } from 'vitest';
import { opCommon, rollupFromConfig } from '../../chain/op/rollup.js';
import { encodeOpReceipt, executeOpBlock } from './opBlockRun.js';

describe('OP block execution: what it refuses, and deposit receipts', () => {
  const rollup = rollupFromConfig({ l2_chain_id: 10, canyon_time: 1000 });
  const blockAt = (timestamp: bigint) => createBlock({ header: { number: 1n, timestamp, baseFeePerGas: 1n } }, { common: opCommon(rollup, 'canyon') });

  it('error: a block of an upgrade tracenode does not know, or of Fjord or later on a VM without P256VERIFY, is refused before anything runs', async () => {
    const later = { ...rollup, unknownUpgrade: { name: 'interop', time: 500n } };
    await expect(executeOpBlock({} as VM, { block: blockAt(500n), transactions: [], rollup: later })).rejects.toThrow(
      /the chain's genesis schedules interop at 500, an upgrade tracenode does not know/,
    );
    const fjord = rollupFromConfig({ l2_chain_id: 10, fjord_time: 0 });
    const plainVm = { evm: { precompiles: new Map() } } as unknown as VM;
    await expect(executeOpBlock(plainVm, { block: blockAt(10n), transactions: [], rollup: fjord })).rejects.toThrow(/lacks Fjord's P256VERIFY/);
  });

  it('a deposit receipt: 0x7E ‖ RLP([status, cumulative gas, bloom, logs, depositNonce, version]); Ethereum’s for others', () => {
    const bloom = new Uint8Array(256);
    const log: [Uint8Array, Uint8Array[], Uint8Array] = [new Uint8Array(20).fill(0x42), [new Uint8Array(32).fill(1)], Uint8Array.of(9)];
    const deposit = {
      type: 0x7e,
      status: 1 as const,
      cumulativeGasUsed: 47_000n,
      gasUsed: 47_000n,
      logs: [log],
      bloom,
      depositNonce: 7n,
      depositReceiptVersion: 1n,
    };
    const fields = [Uint8Array.of(1), Uint8Array.of(0xb7, 0x98), bloom, [log], Uint8Array.of(7), Uint8Array.of(1)];
    expect(bytesToHex(encodeOpReceipt(deposit))).toBe(bytesToHex(concatBytes(Uint8Array.of(0x7e), RLP.encode(fields))));
    // Before Regolith and Canyon the two fields are not there; a failed deposit's status is empty.
    const bedrock = { ...deposit, status: 0 as const, depositNonce: undefined, depositReceiptVersion: undefined };
    expect(bytesToHex(encodeOpReceipt(bedrock))).toBe(bytesToHex(concatBytes(Uint8Array.of(0x7e), RLP.encode([new Uint8Array(), fields[1], bloom, [log]]))));
    const ordinary = { ...deposit, type: 2, depositNonce: undefined, depositReceiptVersion: undefined };
    expect(bytesToHex(encodeOpReceipt(ordinary))).toBe(bytesToHex(concatBytes(Uint8Array.of(2), RLP.encode(fields.slice(0, 4)))));
  });
});
