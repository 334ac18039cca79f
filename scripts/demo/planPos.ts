// Owns the demo chain's plan for its proof-of-stake blocks 20..64: the merge, withdrawals from
// Shanghai on, BlobProbe and a blob transaction under Cancun, self-destructs under EIP-6780, a
// storage slot cleared, a block above the gas target, and quiet blocks up to the head.
import { stringToHex } from 'viem';
import { functionData as call, deployData, slotHex } from '../lib/abi.js';
import { createAddress } from '../lib/accounts.js';
import { alice, bob, carol, dave, ETHER, rare1, rare3, withdrawal1, withdrawal2 } from './demoParams.js';
import { type BlockPlan, type PlanContext, TDT } from './planTypes.js';

/** Blocks 20..64; blocks without an entry are empty. */
export function posBlockPlan({ C, A, peekNonce, blobVersionedHashes }: PlanContext): BlockPlan {
  return {
    20: () => ({
      txs: [
        [alice, { to: bob.address, value: 1n * ETHER, gas: 21_000n }, 'first PoS block: value transfer alice → bob (EIP-1559)'],
        [alice, { to: A.StateBox, data: call(C.StateBox, 'setCounter', [20]), gas: 100_000n }],
      ],
    }),
    21: () => ({
      txs: [
        [carol, { type: 0, to: A.Probe, value: ETHER / 2n, gas: 100_000n }, 'send 0.5 ETH to Probe (legacy tx after the merge)'],
        [bob, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [carol.address, TDT(50)]), gas: 100_000n }],
      ],
    }),
    23: () => ({
      withdrawals: [
        { validatorIndex: 1, address: withdrawal1.address, amount: 32_000_000n },
        { validatorIndex: 2, address: withdrawal2.address, amount: 1_500_000n },
      ],
      txs: [
        [
          bob,
          { type: 1, to: A.StateBox, data: call(C.StateBox, 'increment'), gas: 100_000n, accessList: [{ address: A.StateBox, storageKeys: [slotHex(0)] }] },
          'StateBox.increment() (EIP-2930 tx after the merge)',
        ],
      ],
    }),
    24: () => ({ withdrawals: [], txs: [[dave, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [bob.address, TDT(1)]), gas: 100_000n }]] }),
    25: () => ({ withdrawals: [{ validatorIndex: 1, address: withdrawal1.address, amount: 12_345_678n }], txs: [] }),
    26: () => {
      A.BlobProbe = createAddress(alice.address, peekNonce(alice));
      return { txs: [[alice, { to: undefined, data: deployData(C.BlobProbe), gas: 1_000_000n }, 'deploy BlobProbe (first Cancun block)']] };
    },
    27: () => ({
      txs: [
        [
          bob,
          { to: A.Child1, data: call(C.Child, 'kill', [carol.address]), gas: 100_000n },
          'Child1.kill(carol): SELFDESTRUCT under Cancun (EIP-6780) — only the 0.5 ETH moves, code and storage stay',
        ],
        [
          alice,
          { to: A.Factory, value: ETHER / 10n, data: call(C.Factory, 'createAndDestroy', [3, dave.address]), gas: 500_000n },
          'Factory.createAndDestroy{0.1 ETH}(3, dave): CREATE + SELFDESTRUCT in the same tx — account deleted even under Cancun',
        ],
      ],
    }),
    28: () => ({
      txs: [
        [
          alice,
          { type: 3, to: A.BlobProbe, data: call(C.BlobProbe, 'record', [stringToHex('blob tx')]), gas: 200_000n, blobVersionedHashes },
          'type-3 blob tx: BlobProbe.record("blob tx") stores BLOBHASH(0) and BLOBBASEFEE',
        ],
      ],
    }),
    29: () => ({
      txs: [
        [alice, { to: A.StateBox, data: call(C.StateBox, 'setCounter', [29]), gas: 100_000n }],
        [carol, { to: A.StateBox, data: call(C.StateBox, 'setBalance', [bob.address, 0]), gas: 100_000n }, 'StateBox.setBalance(bob, 0): storage slot cleared'],
        [alice, { to: A.StateBox, data: call(C.StateBox, 'setGrid', [bob.address, 1, 0]), gas: 100_000n }],
      ],
    }),
    30: () => ({
      withdrawals: [
        { validatorIndex: 1, address: withdrawal1.address, amount: 1_000_000n },
        { validatorIndex: 2, address: withdrawal2.address, amount: 2_000_000n },
        { validatorIndex: 3, address: withdrawal2.address, amount: 3_000_000n },
      ],
      txs: [
        [bob, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [dave.address, TDT(10)]), gas: 100_000n }],
        [dave, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [carol.address, TDT(3)]), gas: 100_000n }],
        [carol, { to: A.DemoToken, data: call(C.DemoToken, 'approve', [bob.address, TDT(20)]), gas: 100_000n }],
      ],
    }),
    33: () => ({
      txs: [
        [
          alice,
          { to: A.Caller, value: (3n * ETHER) / 10n, data: call(C.Caller, 'forward', [rare3.address]), gas: 100_000n },
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
      withdrawals: [{ validatorIndex: 4, address: withdrawal1.address, amount: 64_000_000n }],
      txs: [[alice, { type: 0, to: rare1.address, value: ETHER / 2n, gas: 21_000n }, 'value transfer alice → rare-1 (legacy)']],
    }),
    42: () => ({
      txs: [
        [carol, { to: A.DemoToken, data: call(C.DemoToken, 'transferFrom', [alice.address, carol.address, TDT(400)]), gas: 100_000n }],
        [alice, { to: A.StateBox, data: call(C.StateBox, 'setGrid', [alice.address, 7, 45]), gas: 100_000n }],
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
    48: () => ({ txs: [[dave, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [alice.address, TDT(1)]), gas: 100_000n }]] }),
    50: () => ({
      withdrawals: [{ validatorIndex: 2, address: withdrawal2.address, amount: 7_000_000n }],
      txs: [
        [alice, { to: A.StateBox, data: call(C.StateBox, 'setCounter', [50]), gas: 100_000n }],
        [alice, { to: A.Caller, value: 1n * ETHER, data: call(C.Caller, 'allKinds', [A.Logic, A.StateBox, carol.address, 50]), gas: 200_000n }],
      ],
    }),
    53: () => ({ txs: [[bob, { type: 0, to: carol.address, value: 3n * ETHER, gas: 21_000n }]] }),
    56: () => ({ txs: [[alice, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [bob.address, TDT(42)]), gas: 100_000n }]] }),
    60: () => ({
      txs: [
        [carol, { to: A.StateBox, data: call(C.StateBox, 'setBalance', [carol.address, 60]), gas: 100_000n }],
        [alice, { to: A.Probe, value: ETHER / 10n, gas: 100_000n }],
      ],
    }),
    64: () => ({
      txs: [
        [alice, { to: A.StateBox, data: call(C.StateBox, 'setCounter', [64]), gas: 100_000n }, 'StateBox.setCounter(64) (head block)'],
        [bob, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [dave.address, TDT(7)]), gas: 100_000n }],
      ],
    }),
  };
}
