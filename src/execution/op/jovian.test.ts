import { createBlock } from '@ethereumjs/block';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { createLegacyTx } from '@ethereumjs/tx';
import { Account, Address, bigIntToBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { OpBlockError } from '../../chain/op/baseFee.js';
import { opCommon, rollupFromConfig } from '../../chain/op/rollup.js';
import { createBlockVM } from '../blockRun.js';
import { fjordEstimatedSize, L1_BLOCK_ADDRESS } from './l1Cost.js';
import { executeOpBlock } from './opBlockRun.js';
import { OPERATOR_FEE_VAULT } from './operatorFee.js';
import { opPrecompiles } from './precompiles.js';

/**
 * Jovian blocks: each signed transaction's data-availability footprint (its estimated compressed
 * size × L1Block's DA footprint gas scalar, slot 8 bytes [18, 20)) summed as the block's
 * blobGasUsed and bounded by its gas limit, and the operator fee's Jovian formula (gas × scalar ×
 * 100 + constant), as op-reth's executor and L1BlockInfo have them (base/base 98a8db8d,
 * crates/alloy/evm/src/executor.rs, crates/execution/revm/src/l1block.rs).
 */
describe('Jovian blocks', () => {
  const rollup = rollupFromConfig({
    l2_chain_id: 10,
    regolith_time: 0,
    canyon_time: 0,
    ecotone_time: 0,
    fjord_time: 0,
    granite_time: 0,
    holocene_time: 0,
    isthmus_time: 0,
    jovian_time: 0,
  });
  const common = opCommon(rollup, 'jovian');
  const key = hexToBytes(`0x${'42'.repeat(32)}`);
  const transfer = createLegacyTx({ nonce: 0n, gasPrice: 10n, gasLimit: 21_000n, to: new Address(new Uint8Array(20).fill(7)), value: 1n }, { common }).sign(
    key,
  );

  /** Runs a block of the transfer with L1Block's slot 8 holding `daScalar`, operator fee scalar 2 and constant 50. */
  async function run(daScalar: bigint, gasLimit: bigint) {
    const stateManager = new MerkleStateManager({ common });
    await stateManager.putAccount(transfer.getSenderAddress(), new Account(0n, 10n ** 18n));
    const l1Block = new Address(hexToBytes(L1_BLOCK_ADDRESS));
    await stateManager.putAccount(l1Block, new Account());
    const slot8 = (daScalar << 96n) | (2n << 64n) | 50n;
    await stateManager.putStorage(l1Block, setLengthLeft(bigIntToBytes(8n), 32), setLengthLeft(bigIntToBytes(slot8), 32));
    const vm = await createBlockVM({ common, stateManager, evmOpts: { customPrecompiles: opPrecompiles(rollup, 1n, common) } });
    const block = createBlock({ header: { number: 1n, timestamp: 1n, baseFeePerGas: 1n, gasLimit } }, { common, setHardfork: false });
    const result = await executeOpBlock(vm, { block, transactions: [transfer.serialize()], rollup });
    return { result, vault: (await stateManager.getAccount(new Address(OPERATOR_FEE_VAULT)))?.balance ?? 0n };
  }

  it('a transfer’s footprint is the 100-byte minimum size × the scalar: the block’s blobGasUsed', async () => {
    // A legacy transfer compresses to under Fjord's 100-byte floor, which then counts.
    expect(fjordEstimatedSize(transfer.serialize())).toBe(100_000_000n);
    const { result } = await run(7n, 30_000_000n);
    expect(result.blobGasUsed).toBe(700n);
    expect(result.receipts[0].daFootprint).toEqual({ gasUsed: 700n, scalar: 7n });
    expect(result.gasUsed).toBe(21_000n);
  });

  it('the operator fee by Jovian’s formula: the vault gets gas used × scalar × 100 + constant', async () => {
    // 21,000 × 2 × 100 + 50 (op-reth's own vector: 1,000 gas, scalar 1,000, constant 10 → 100,000,010).
    expect((await run(7n, 30_000_000n)).vault).toBe(4_200_050n);
  });

  it('error: a footprint beyond what the block’s gas limit leaves makes the block invalid', async () => {
    // 100 × 65,535 = 6,553,500 > 1,000,000.
    await expect(run(65_535n, 1_000_000n)).rejects.toThrow(OpBlockError);
    await expect(run(65_535n, 1_000_000n)).rejects.toThrow(/data-availability footprint 6553500 is more than the 1000000 the block has left/);
    expect((await run(10_000n, 1_000_000n)).result.blobGasUsed).toBe(1_000_000n);
  });
});
