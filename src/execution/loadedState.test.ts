import { Common, Mainnet } from '@ethereumjs/common';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { createLegacyTx } from '@ethereumjs/tx';
import { Account, Address, bytesToHex, createContractAddress, hexToBytes, privateToAddress } from '@ethereumjs/util';
import { createVM, runTx, type VM } from '@ethereumjs/vm';
import { describe, expect, it } from 'vitest';
import { keccak256 } from '../codec/keccak.js';
import { keepLoadedState } from './loadedState.js';

const KEY = hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const SENDER = new Address(privateToAddress(KEY));
const at = (n: number) => new Address(hexToBytes(`0x${n.toString(16).padStart(40, '0')}`));
const word = (n: bigint) => hexToBytes(`0x${n.toString(16).padStart(64, '0')}`);
const leaf = (n: bigint) => bytesToHex(keccak256(word(n)));
const [SLOADS, STORES, PRECOMPILE, DELEGATES, REVERTS] = [0xaa01, 0xaa02, 0xaa03, 0xaa04, 0xaa05].map(at);
const CODES: Array<[Address, string]> = [
  [SLOADS, '600154 50 00'], // SLOAD slot 1
  [STORES, '600035 600255 00'], // slot 2 := calldata word
  [PRECOMPILE, '6000600060006000600060025a f1 50 00'], // CALL sha256 (0x02) without value
  [DELEGATES, '6000600060006000 61cafe 5a f4 50 00'], // DELEGATECALL 0xcafe (no code)
  [REVERTS, '61caf4 31 50 600554 50 60006000fd'], // BALANCE 0xcaf4, SLOAD slot 5, REVERT
];
/** The address of the creation below (the sender's 8th transaction). */
const CREATED = createContractAddress(SENDER, 7n);

/** A VM (caches on, as the importer's and replays'), with or without anvil's state, after one transaction of each kind. */
async function run(kept: boolean): Promise<VM> {
  const common = new Common({ chain: Mainnet, hardfork: 'prague' });
  const vm = await createVM({ common, stateManager: new MerkleStateManager({ common, caches: new Caches() }) });
  if (kept) keepLoadedState(vm);
  await vm.stateManager.putAccount(SENDER, new Account(0n, 10n ** 18n));
  for (const [address, code] of CODES) {
    await vm.stateManager.putAccount(address, new Account());
    await vm.stateManager.putCode(address, hexToBytes(`0x${code.replace(/ /g, '')}`));
  }
  const txs: Array<{ to?: Address; data?: Uint8Array }> = [
    { to: SLOADS },
    { to: STORES, data: word(5n) },
    { to: STORES, data: word(0n) },
    { to: PRECOMPILE },
    { to: DELEGATES },
    { to: REVERTS },
    { to: at(0xdead) }, // 0 wei to an address that has nothing
    { data: hexToBytes('0x61caf6ff') }, // a creation that self-destructs to 0xcaf6
  ];
  for (const [nonce, fields] of txs.entries()) {
    const tx = createLegacyTx({ nonce, gasPrice: 10n, gasLimit: 200_000n, ...fields }, { common }).sign(KEY);
    await runTx(vm, { tx });
  }
  await vm.stateManager.getStateRoot();
  return vm;
}

describe("keepLoadedState: anvil's state", () => {
  it('accounts looked up (also in a frame that reverted) or touched stay as empty accounts; slots read or cleared in frames that did not revert as zero leaves', async () => {
    const kept = await run(true);
    const plain = await run(false);
    const sm = kept.stateManager as MerkleStateManager;
    const plainSm = plain.stateManager as MerkleStateManager;
    // sha256 called without value, the code DELEGATECALL borrowed, BALANCE in a reverted frame, a
    // 0-wei transfer's target, the self-destruct's beneficiary and the self-destructed creation.
    for (const address of [at(2), at(0xcafe), at(0xcaf4), at(0xdead), at(0xcaf6), CREATED]) {
      expect((await sm.getAccount(address))?.isEmpty(), address.toString()).toBe(true);
      expect(await plainSm.getAccount(address), address.toString()).toBeUndefined();
    }
    expect(await sm.dumpStorage(SLOADS)).toEqual({ [leaf(1n)]: '0x80' });
    expect(await sm.dumpStorage(STORES)).toEqual({ [leaf(2n)]: '0x80' });
    // The SLOAD of a frame that reverted leaves nothing, as anvil.
    expect(await sm.dumpStorage(REVERTS)).toEqual({});
    expect(await plainSm.dumpStorage(SLOADS)).toEqual({});
    expect(await plainSm.dumpStorage(STORES)).toEqual({});
    // Everything else is alike: the sender's balance and nonce, the coinbase's.
    for (const address of [SENDER, at(0)]) expect(await sm.getAccount(address)).toEqual(await plainSm.getAccount(address));
    expect(bytesToHex(await sm.getStateRoot())).not.toBe(bytesToHex(await plainSm.getStateRoot()));
  });

  it('error: a VM whose state manager has no storage cache is refused (the cache writes back the slots read)', async () => {
    const vm = await createVM({ common: new Common({ chain: Mainnet, hardfork: 'prague' }), stateManager: new MerkleStateManager() });
    expect(() => keepLoadedState(vm)).toThrow(/no storage cache/);
  });
});
