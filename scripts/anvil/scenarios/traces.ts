// Owns the `traces` scenario: every call kind, creations from transactions and from contracts,
// reverts and out-of-gas at depth and at the top, self-destructs, every precompile, and the three
// transaction types, for the Parity trace differential test.
import { type Address, type Hash, type Hex, keccak256, stringToBytes } from 'viem';
import { calldata, deployData, functionData, slotHex } from '../../lib/abi.js';
import { create2Address, createAddress } from '../../lib/accounts.js';
import type { SentTx } from '../chainDriver.js';
import { accountFor, ETHER, GWEI } from '../chainParams.js';
import type { Scenario, ScenarioContext, ScenarioInfo } from '../scenario.js';

const tag = (s: string): Hex => keccak256(stringToBytes(s));

async function run({ d, art, acct, blocks }: ScenarioContext): Promise<ScenarioInfo> {
  const { alice, bob, carol } = acct;
  const eve = accountFor('eve');
  const C = art['Tracer.sol:Callee'];
  const R = art['Tracer.sol:Relay'];
  const D = art['Factory.sol:Doomed'];
  const txs: Record<string, { hash: Hash; block: number }> = {};
  /** Records a transaction of interest for the README and the tests. */
  const note = async (name: string, sent: Promise<SentTx>): Promise<SentTx> => {
    const t = await sent;
    txs[name] = { hash: t.hash, block: t.block };
    return t;
  };
  // 2: deployments (top-level CREATE)
  const callee = (await note('deployCallee', d.tx(alice, { data: C.bytecode, gas: 500_000n, label: 'deploy Callee' }))).created!;
  const r1 = (await note('deployRelay1', d.tx(alice, { data: R.bytecode, gas: 2_500_000n, label: 'deploy Relay 1' }))).created!;
  const r2 = (await d.tx(alice, { data: R.bytecode, gas: 2_500_000n, label: 'deploy Relay 2' })).created!;
  const r3 = (await d.tx(alice, { data: R.bytecode, gas: 2_500_000n, label: 'deploy Relay 3' })).created!;
  await d.mine();
  // 3: two self-destructing contracts, created here, destroyed later
  const d1 = (await note('deployDoomed1', d.tx(alice, { data: deployData(D, [alice.address]), value: ETHER, gas: 400_000n, label: 'deploy Doomed 1' })))
    .created!;
  const d2 = (await d.tx(alice, { data: deployData(D, [r1]), value: ETHER, gas: 400_000n, label: 'deploy Doomed 2 (owner Relay 1)' })).created!;
  await d.mine();
  // 4: CALL with value; a plain value transfer to an EOA
  await note('callWithValue', d.tx(bob, { to: r1, data: calldata('callWithValue(address)', callee), value: GWEI, gas: 150_000n, label: 'R1.callWithValue' }));
  await note('valueToEoa', d.tx(bob, { to: eve.address, value: ETHER, gas: 21_000n, label: 'ETH bob→eve' }));
  await d.mine();
  // 5: DELEGATECALL, STATICCALL, CALLCODE
  await note('delegatecall', d.tx(bob, { to: r1, data: calldata('viaDelegatecall(address,uint256)', callee, 5n), gas: 150_000n, label: 'R1.viaDelegatecall' }));
  await note('staticcall', d.tx(bob, { to: r1, data: calldata('viaStaticcall(address)', callee), gas: 150_000n, label: 'R1.viaStaticcall' }));
  await note('callcode', d.tx(bob, { to: r1, data: calldata('viaCallcode(address,uint256)', callee, 6n), value: 3n, gas: 150_000n, label: 'R1.viaCallcode' }));
  await d.mine();
  // 6: CREATE and CREATE2 from a contract
  const spawned = createAddress(r1, 1);
  await note('create', d.tx(carol, { to: r1, data: calldata('spawn()'), value: ETHER / 100n, gas: 500_000n, label: 'R1.spawn (CREATE)' }));
  const salt = tag('traces-salt');
  const spawned2 = create2Address(r1, salt, C.bytecode);
  await note('create2', d.tx(carol, { to: r1, data: calldata('spawn2(bytes32)', salt), gas: 500_000n, label: 'R1.spawn2 (CREATE2)' }));
  await d.mine();
  // 7: reverts at depth, caught; out-of-gas in a subcall, caught
  await note('catchRevert', d.tx(bob, { to: r1, data: calldata('catchRevert(address,uint256)', callee, 3n), gas: 200_000n, label: 'R1.catchRevert' }));
  await note('catchOutOfGas', d.tx(bob, { to: r1, data: calldata('catchOutOfGas(address)', callee), gas: 200_000n, label: 'R1.catchOutOfGas' }));
  await d.mine();
  // 8: nested depth (tx → R1 → R2 → R3 → Callee.deposit + Callee.set) and a reverting middle frame
  const chainData = (relays: Address[], v: bigint) => functionData(R, 'chain', [relays, callee, v]);
  await note('nested', d.tx(carol, { to: r1, data: chainData([r2, r3], 77n), value: 8n * GWEI, gas: 400_000n, label: 'R1.chain depth 4' }));
  await note(
    'revertInMiddle',
    d.tx(carol, { to: r1, data: calldata('revertInMiddle(address,address)', r2, callee), gas: 300_000n, label: 'R1.revertInMiddle' }),
  );
  await d.mine();
  // 9: a top-level revert, a top-level out-of-gas
  await note('topLevelRevert', d.tx(bob, { to: r1, data: calldata('alwaysRevert(uint256)', 1n), gas: 100_000n, expect: 'revert', label: 'R1.alwaysRevert' }));
  await note('topLevelOutOfGas', d.tx(bob, { to: callee, data: calldata('burn()'), gas: 100_000n, expect: 'revert', label: 'Callee.burn (OOG)' }));
  await d.mine();
  // 10: every precompile, without and with value
  await note('precompiles', d.tx(alice, { to: r1, data: functionData(R, 'precompiles', ['0x68656c6c6f']), gas: 1_000_000n, label: 'R1.precompiles' }));
  await note(
    'precompilesWithValue',
    d.tx(alice, { to: r1, data: functionData(R, 'precompiles', ['0x776f726c64']), value: 9n, gas: 1_000_000n, label: 'R1.precompiles + value' }),
  );
  await d.mine();
  // 11: SELFDESTRUCT in later transactions: top-level and one frame down
  await note('selfdestruct', d.tx(alice, { to: d1, data: calldata('destroy(address)', eve.address), gas: 100_000n, label: 'Doomed1.destroy → eve' }));
  await note(
    'selfdestructAtDepth',
    d.tx(bob, { to: r1, data: calldata('kill(address,address)', d2, carol.address), gas: 150_000n, label: 'R1.kill(Doomed2) → carol' }),
  );
  await d.mine();
  // 12: value to an EOA from a contract; legacy and EIP-2930 transactions
  await note('payEoa', d.tx(carol, { to: r1, data: calldata('pay(address)', eve.address), value: 1234n, gas: 100_000n, label: 'R1.pay → eve' }));
  await note('legacy', d.tx(bob, { to: callee, data: calldata('set(uint256)', 9n), gas: 100_000n, type: 0, label: 'Callee.set (legacy)' }));
  await note(
    'accessList',
    d.tx(carol, {
      to: r2,
      data: calldata('viaStaticcall(address)', callee),
      gas: 150_000n,
      type: 1,
      accessList: [{ address: callee, storageKeys: [slotHex(0)] }],
      label: 'R2.viaStaticcall (2930)',
    }),
  );
  await d.mine();
  await d.mineEmpty(1); // 13
  // 14: one block with many call trees
  await note('nestedDeep', d.tx(alice, { to: r3, data: chainData([r2, r1, r2, r3], 5n), value: 32n * GWEI, gas: 600_000n, label: 'R3.chain depth 6' }));
  await d.tx(bob, { to: r2, data: calldata('catchRevert(address,uint256)', callee, 4n), gas: 200_000n, label: 'R2.catchRevert' });
  await d.tx(carol, { to: r2, data: calldata('callWithValue(address)', spawned), value: 5n * GWEI, gas: 150_000n, label: 'R2.callWithValue → spawned' });
  await d.tx(alice, { to: spawned2, data: calldata('set(uint256)', 12n), gas: 100_000n, label: 'spawned2.set' });
  await d.mine();
  // rounds until the target height
  let round = 0;
  while (d.head + 2 <= blocks) {
    round++;
    const relays = [[r2], [r2, r3], [r3, r2, r1]][round % 3];
    await d.tx(bob, { to: r1, data: chainData(relays, BigInt(100 + round)), value: BigInt(round) * GWEI, gas: 500_000n, label: `round ${round}: chain` });
    await d.tx(carol, { to: r2, data: calldata('catchOutOfGas(address)', callee), gas: 200_000n, label: `round ${round}: catchOutOfGas` });
    await d.tx(alice, {
      to: r3,
      data: calldata('viaDelegatecall(address,uint256)', callee, BigInt(round + 1)),
      gas: 150_000n,
      label: `round ${round}: delegatecall`,
    });
    await d.mine();
    await d.mineEmpty(1);
  }
  while (d.head < blocks) await d.mineEmpty(1);
  return {
    contracts: { Callee: callee, Relay1: r1, Relay2: r2, Relay3: r3, Doomed1: d1, Doomed2: d2, SpawnedCreate: spawned, SpawnedCreate2: spawned2 },
    accounts: { alice: alice.address, bob: bob.address, carol: carol.address, eve: eve.address },
    txs,
    notes: [
      'Relay slot 0 (x) mirrors Callee slot 0, so DELEGATECALL/CALLCODE into Callee.set write Relay storage.',
      'Callee.burn never returns: catchOutOfGas gives it 40000 gas (caught); topLevelOutOfGas runs out at the top.',
      'precompiles: calls 0x01..0x09 (with 1 wei each when value >= 9) and 0x0a with an invalid proof (fails, caught).',
    ],
  };
}

/** `traces`: 24 blocks by default (at least 14), rounds of two blocks after block 14. */
export const TRACES_SCENARIO: Scenario = {
  files: ['Tracer.sol', 'Factory.sol'],
  defaultBlocks: 24,
  users: 0,
  checkRaw: true,
  anvilArgs: [],
  run,
};
