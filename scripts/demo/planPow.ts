// Owns the demo chain's plan for its proof-of-work blocks 1..19: value transfers (EIP-155 and
// pre-EIP-155 signatures), StateBox storage, the contracts' deployments, every call kind, CREATE and
// CREATE2, reverts of each kind, uncles at distances 1 to 3, and a self-destruct before Cancun.
import { stringToHex } from 'viem';
import { functionData as call, deployData, slotHex } from '../lib/abi.js';
import { create2Address, createAddress } from '../lib/accounts.js';
import { alice, bob, carol, dave, ETHER, rare1, rare2, uncleMiner1, uncleMiner2, uncleMiner3 } from './demoParams.js';
import { type BlockPlan, type PlanContext, SALT1, TDT } from './planTypes.js';

/** Blocks 1..19; a block's function runs when the block is built, after the blocks before it. */
export function powBlockPlan({ C, A, peekNonce }: PlanContext): BlockPlan {
  return {
    1: () => ({
      txs: [
        [alice, { to: bob.address, value: 5n * ETHER, gas: 21_000n }, 'value transfer alice → bob (legacy, EIP-155)'],
        [bob, { to: carol.address, value: 1n * ETHER, gas: 21_000n, unprotected: true }, 'value transfer bob → carol (legacy, pre-EIP-155 signature v=27/28)'],
        [alice, { to: A.StateBox, data: call(C.StateBox, 'setCounter', [2]), gas: 100_000n }, 'StateBox.setCounter(2)'],
      ],
    }),
    2: () => ({
      txs: [
        [carol, { to: A.StateBox, data: call(C.StateBox, 'setBalance', [bob.address, 500]), gas: 100_000n }, 'StateBox.setBalance(bob, 500)'],
        [dave, { to: alice.address, value: ETHER / 10n, gas: 21_000n }],
      ],
    }),
    3: () => ({
      uncles: [{ number: 2, miner: uncleMiner1, extra: 'tracenode/uncle-a' }],
      txs: [
        [alice, { to: A.StateBox, data: call(C.StateBox, 'setGrid', [alice.address, 7, 43]), gas: 100_000n }, 'StateBox.setGrid(alice, 7, 43)'],
        [alice, { to: A.StateBox, data: call(C.StateBox, 'setGrid', [bob.address, 1, 1]), gas: 100_000n }],
        [carol, { to: rare1.address, value: 1n * ETHER, gas: 21_000n }, 'value transfer carol → rare-1'],
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
            accessList: [{ address: A.StateBox, storageKeys: [slotHex(0)] }],
          },
          'StateBox.setCounter(10) (EIP-2930 tx with access list)',
        ],
      ],
    }),
    7: () => ({
      uncles: [{ number: 6, miner: uncleMiner2, extra: 'tracenode/uncle-b' }],
      txs: [
        [bob, { to: dave.address, value: 2n * ETHER, gas: 21_000n }],
        [alice, { to: A.StateBox, data: call(C.StateBox, 'setOwner', [bob.address]), gas: 100_000n }, 'StateBox.setOwner(bob)'],
      ],
    }),
    8: () => {
      A.DemoToken = createAddress(alice.address, peekNonce(alice));
      A.Probe = createAddress(alice.address, peekNonce(alice) + 1n);
      A.Logic = createAddress(alice.address, peekNonce(alice) + 2n);
      return {
        txs: [
          [alice, { to: undefined, data: deployData(C.DemoToken, [TDT(1_000_000)]), gas: 1_500_000n }, 'deploy DemoToken (CREATE tx, EIP-1559)'],
          [alice, { to: undefined, data: deployData(C.Probe), gas: 1_000_000n }, 'deploy Probe'],
          [alice, { type: 0, to: undefined, data: deployData(C.Logic), gas: 500_000n }, 'deploy Logic (legacy CREATE tx)'],
        ],
      };
    },
    9: () => {
      A.Thrower = createAddress(alice.address, peekNonce(alice));
      A.Caller = createAddress(alice.address, peekNonce(alice) + 1n);
      A.Factory = createAddress(alice.address, peekNonce(alice) + 2n);
      return {
        txs: [
          [alice, { to: undefined, data: deployData(C.Thrower), gas: 1_000_000n }, 'deploy Thrower'],
          [alice, { to: undefined, data: deployData(C.Caller), gas: 2_500_000n }, 'deploy Caller'],
          [alice, { to: undefined, data: deployData(C.Factory), gas: 2_000_000n }, 'deploy Factory'],
          [alice, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [bob.address, TDT(1000)]), gas: 100_000n }, 'DemoToken.transfer(bob, 1000 TDT)'],
        ],
      };
    },
    10: () => ({
      txs: [
        [bob, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [carol.address, TDT(250)]), gas: 100_000n }],
        [alice, { to: A.DemoToken, data: call(C.DemoToken, 'approve', [carol.address, TDT(500)]), gas: 100_000n }, 'DemoToken.approve(carol, 500 TDT)'],
        [
          carol,
          { to: A.DemoToken, data: call(C.DemoToken, 'transferFrom', [alice.address, dave.address, TDT(100)]), gas: 100_000n },
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
          { to: A.Caller, value: 1n * ETHER, data: call(C.Caller, 'forward', [bob.address]), gas: 100_000n },
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
          { to: A.Caller, value: ETHER / 5n, data: call(C.Caller, 'allKinds', [A.Logic, A.StateBox, dave.address, 5]), gas: 200_000n },
          'Caller.allKinds{0.2 ETH}: CALL with value + DELEGATECALL + STATICCALL + CALLCODE in one tx',
        ],
      ],
    }),
    13: () => {
      A.Child1 = createAddress(A.Factory, 1n); // contract nonces start at 1 (EIP-161)
      A.Child2 = create2Address(A.Factory, SALT1, deployData(C.Child, [2]));
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
          { to: A.DemoToken, data: call(C.DemoToken, 'transferFrom', [alice.address, carol.address, TDT(10_000)]), gas: 100_000n },
          'FAILS: DemoToken.transferFrom beyond allowance — revert with reason string Error("DemoToken: insufficient allowance")',
          'fail',
        ],
        [
          bob,
          { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [alice.address, TDT(1_000_000_000)]), gas: 100_000n },
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
          { to: A.Caller, value: 1000n, data: call(C.Caller, 'precompiles', [stringToHex('tracenode')]), gas: 200_000n },
          'Caller.precompiles{1000 wei}("tracenode"): sha256 + ripemd160 (no value) and identity 0x04 (CALL with value)',
        ],
        [dave, { to: A.Thrower, data: call(C.Thrower, 'failWithAssert', [0]), gas: 100_000n }, 'FAILS: Thrower.failWithAssert(0) — Panic(0x01)', 'fail'],
      ],
    }),
    17: () => ({
      txs: [
        [
          bob,
          { to: A.Child2, data: call(C.Child, 'kill', [rare2.address]), gas: 100_000n },
          'Child2.kill(rare-2): SELFDESTRUCT before Cancun — account deleted, 0.25 ETH to rare-2',
        ],
        [alice, { to: A.StateBox, data: call(C.StateBox, 'setBalance', [alice.address, 1001]), gas: 100_000n }],
      ],
    }),
    18: () => ({
      uncles: [
        { number: 17, miner: uncleMiner1, extra: 'tracenode/uncle-f' },
        { number: 17, miner: uncleMiner3, extra: 'tracenode/uncle-g', tsOffset: 2 },
      ],
      txs: [[alice, { to: A.DemoToken, data: call(C.DemoToken, 'transfer', [dave.address, TDT(5)]), gas: 100_000n }]],
    }),
    19: () => ({
      txs: [
        [
          alice,
          { to: A.Factory, data: call(C.Factory, 'create2', [SALT1, 2]), gas: 500_000n },
          'Factory.create2(salt 1, 2) again: Child2 re-created at the same address (fresh storage)',
        ],
        [alice, { to: A.StateBox, data: call(C.StateBox, 'setGrid', [alice.address, 7, 44]), gas: 100_000n }],
      ],
    }),
  };
}
