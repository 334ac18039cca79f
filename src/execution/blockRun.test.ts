import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBlock } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { createVM, runBlock, type VM } from '@ethereumjs/vm';
import { describe, expect, it } from 'vitest';
import { withMergedModuleParams } from '../chain/commonParams.js';
import { blockVmCommon, createBlockVM, executeBlock, SystemCallError } from './blockRun.js';

const SYSTEM = '0xfffffffffffffffffffffffffffffffffffffffe';
const WITHDRAWALS = '0x00000961ef480eb55e80d19ad83579a64c007002';
const CONSOLIDATIONS = '0x0000bbddc7ce488642fb579f8b00f3a590007251';
/** EIP-7685: sha256 of nothing, the requests hash of a block with no requests. */
const EMPTY_REQUESTS_HASH = '0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** The four Prague system contracts' code, from the hive chain's genesis (geth's). */
function systemCodes(): Map<string, Uint8Array> {
  const genesis = JSON.parse(readFileSync(join(import.meta.dirname, '../../fixtures/execution-apis/genesis.json'), 'utf8'));
  const codes = new Map<string, Uint8Array>();
  for (const [address, account] of Object.entries(genesis.alloc as Record<string, { code?: string }>)) {
    if (account.code !== undefined && /^(0x)?0000/.test(address)) codes.set(`0x${address.replace(/^0x/, '')}`, hexToBytes(account.code as `0x${string}`));
  }
  return codes;
}

/** A VM on a state holding the system contracts (those in `codes`), and the state manager's account accesses. */
async function pragueVM(codes: Map<string, Uint8Array>, plain: boolean): Promise<{ vm: VM; touched: Set<string> }> {
  const common = withMergedModuleParams(new Common({ chain: Mainnet, hardfork: Hardfork.Prague }));
  const sm = new MerkleStateManager({ common });
  for (const [address, code] of codes) {
    await sm.putAccount(new Address(hexToBytes(address as `0x${string}`)), new Account(1n));
    await sm.putCode(new Address(hexToBytes(address as `0x${string}`)), code);
  }
  await sm.getStateRoot();
  const touched = new Set<string>();
  for (const method of ['getAccount', 'putAccount', 'deleteAccount', 'modifyAccountFields'] as const) {
    const original = (sm[method] as (...args: unknown[]) => Promise<unknown>).bind(sm);
    (sm as unknown as Record<string, unknown>)[method] = (address: Address, ...rest: unknown[]) => {
      touched.add(address.toString());
      return original(address, ...rest);
    };
  }
  const vmCommon = plain ? common.copy() : blockVmCommon(common);
  return { vm: await createVM({ common: vmCommon, stateManager: sm }), touched };
}

function emptyBlock(common: Common, requestsHash?: Uint8Array) {
  return createBlock(
    {
      header: {
        number: 23_000_000n,
        timestamp: 1_760_000_000n,
        gasLimit: 36_000_000n,
        baseFeePerGas: 7n,
        parentBeaconBlockRoot: new Uint8Array(32),
        requestsHash,
      },
    },
    { common, skipConsensusFormatValidation: true },
  );
}

const RUN = { generate: true, skipHeaderValidation: true, skipBlockValidation: true, setHardfork: true } as const;

describe('executeBlock: the EIP-7002 and EIP-7251 request calls', () => {
  it('never reads, writes or touches the system address, and ends on the root plain @ethereumjs/vm computes', async () => {
    const ours = await pragueVM(systemCodes(), false);
    const result = await executeBlock(ours.vm, { block: emptyBlock(ours.vm.common), ...RUN });
    expect(ours.touched.has(SYSTEM)).toBe(false);
    // Both contracts were read (the spec reads their code and runs it).
    expect(ours.touched.has(WITHDRAWALS) && ours.touched.has(CONSOLIDATIONS)).toBe(true);
    expect(bytesToHex(result.requestsHash!)).toBe(EMPTY_REQUESTS_HASH);
    expect(result.requests?.map((r) => r.type)).toEqual([0, 1, 2]);

    // Plain @ethereumjs/vm reads and writes the system address, then deletes it: the same root here,
    // where every trie node is at hand.
    const plain = await pragueVM(systemCodes(), true);
    const reference = await runBlock(plain.vm, { block: emptyBlock(plain.vm.common), ...RUN });
    expect(plain.touched.has(SYSTEM)).toBe(true);
    expect(bytesToHex(result.stateRoot)).toBe(bytesToHex(reference.stateRoot));
    expect(bytesToHex(result.requestsHash!)).toBe(bytesToHex(reference.requestsHash!));
  });

  it('refuses a block whose request contract has no code, or whose call fails', async () => {
    const noCode = systemCodes();
    noCode.delete(CONSOLIDATIONS);
    const a = await pragueVM(noCode, false);
    await expect(executeBlock(a.vm, { block: emptyBlock(a.vm.common), ...RUN })).rejects.toThrow(SystemCallError);
    await expect(executeBlock(a.vm, { block: emptyBlock(a.vm.common), ...RUN })).rejects.toThrow(
      /system contract empty: no code at 0x0000bbddc7ce488642fb579f8b00f3a590007251/,
    );

    const reverting = systemCodes();
    reverting.set(WITHDRAWALS, hexToBytes('0x5f5ffd')); // PUSH0 PUSH0 REVERT
    const b = await pragueVM(reverting, false);
    await expect(executeBlock(b.vm, { block: emptyBlock(b.vm.common), ...RUN })).rejects.toThrow(
      /system contract call failed: 0x00000961ef480eb55e80d19ad83579a64c007002/,
    );
  });

  it('checks the requests hash and the state root itself when asked to validate', async () => {
    const { vm } = await pragueVM(systemCodes(), false);
    await expect(executeBlock(vm, { ...RUN, block: emptyBlock(vm.common, new Uint8Array(32)), generate: false })).rejects.toThrow(
      /^invalid requestsHash \(block 23000000\)/,
    );
    // The right requests hash: the state root (all zeros in this header) is what differs.
    const { vm: again } = await pragueVM(systemCodes(), false);
    const block = emptyBlock(again.common, hexToBytes(EMPTY_REQUESTS_HASH));
    await expect(executeBlock(again, { ...RUN, block, generate: false })).rejects.toThrow(/^invalid block stateRoot, got: 0x[0-9a-f]{64}, want: 0x0{64}/);
  });
});

describe('createBlockVM: the EIP-2537 precompiles on a VM built before Prague', () => {
  // G1ADD of the BLS12-381 G1 generator to itself (EIP-2537 encoding: each coordinate in 64 bytes).
  const G = `${'00'.repeat(16)}17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb${'00'.repeat(16)}08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1`;
  /** x of 2G, the generator doubled. */
  const TWO_G_X = '0572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7c42c39a8c5529bf0f4e';
  const G1ADD = new Address(hexToBytes('0x000000000000000000000000000000000000000b'));

  async function g1add(vm: VM) {
    vm.common.setHardfork(Hardfork.Prague);
    return (await vm.evm.runCall({ to: G1ADD, data: hexToBytes(`0x${G}${G}`), gasLimit: 100_000n })).execResult;
  }

  it('answers as on a VM built at Prague; a plain createVM built at Cancun fails the call', async () => {
    const ours = await g1add(await createBlockVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Cancun }) }));
    expect(ours.exceptionError).toBeUndefined();
    expect(bytesToHex(ours.returnValue).slice(2, 2 + 128)).toBe(`${'00'.repeat(16)}${TWO_G_X}`);
    expect(ours.executionGasUsed).toBe(375n);
    const plain = await g1add(await createVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Cancun }) }));
    expect(plain.exceptionError).toBeDefined();
  });
});
