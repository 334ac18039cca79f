import { createBlock } from '@ethereumjs/block';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { bytesToHex, KECCAK256_NULL } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { opCommon, rollupFromConfig } from '../../chain/op/rollup.js';
import { keccak256 } from '../../codec/keccak.js';
import { createBlockVM } from '../blockRun.js';
import { CREATE2_DEPLOYER, CREATE2_DEPLOYER_CODE, CREATE2_DEPLOYER_CODE_HASH } from './create2Deployer.js';
import { executeOpBlock } from './opBlockRun.js';

describe("Canyon's create2 deployer", () => {
  it('its code (op-reth’s bytes) hashes to op-geth’s create2DeployerCodeHash', () => {
    expect(CREATE2_DEPLOYER_CODE.length).toBe(1584);
    // op-geth consensus/misc/create2deployer.go (7b56c73): create2DeployerCodeHash.
    expect(bytesToHex(keccak256(CREATE2_DEPLOYER_CODE))).toBe('0xb0550b5b431e30d38000efb7107aaa0ade03d48a7198a140edda9d27134468b2');
    expect(CREATE2_DEPLOYER_CODE_HASH).toBe('0xb0550b5b431e30d38000efb7107aaa0ade03d48a7198a140edda9d27134468b2');
  });

  it('is installed by the block whose time is Canyon’s, and by no other (op-geth: CanyonTime == timestamp)', async () => {
    const rollup = rollupFromConfig({ l2_chain_id: 10, regolith_time: 0, canyon_time: 1000 });
    const codeAfter = async (timestamp: bigint) => {
      const common = opCommon(rollup, timestamp >= 1000n ? 'canyon' : 'regolith');
      const stateManager = new MerkleStateManager({ common });
      const vm = await createBlockVM({ common, stateManager });
      const header = { number: 1n, timestamp, baseFeePerGas: 1n };
      const block = createBlock({ header }, { common, setHardfork: false });
      await executeOpBlock(vm, { block, transactions: [], rollup });
      return (await stateManager.getAccount(CREATE2_DEPLOYER))?.codeHash ?? KECCAK256_NULL;
    };
    expect(bytesToHex(await codeAfter(1000n))).toBe(CREATE2_DEPLOYER_CODE_HASH);
    expect(await codeAfter(1002n)).toEqual(KECCAK256_NULL);
    expect(await codeAfter(998n)).toEqual(KECCAK256_NULL);
  });
});
