// Owns the `state` scenario: contracts whose storage changes over blocks (plain slots, mappings,
// nested mappings, a dynamic array, strings), token transfers, CREATE and CREATE2 children and a
// self-destruct. It never writes zero to storage (docs/peers.md: anvil 1.7.1 leaves a zero leaf).
import { type Address, type Hex, keccak256, stringToBytes } from 'viem';
import { calldata, deployData, functionData, mappingSlot, slotHex } from '../../lib/abi.js';
import { create2Address, createAddress, type KeyedAccount } from '../../lib/accounts.js';
import type { TxOptions } from '../chainDriver.js';
import { accountFor, ETHER, GWEI } from '../chainParams.js';
import type { Scenario, ScenarioContext, ScenarioInfo } from '../scenario.js';

const tag = (s: string): Hex => keccak256(stringToBytes(s));

async function run({ d, art, acct, blocks }: ScenarioContext): Promise<ScenarioInfo> {
  const { alice, bob, carol, dave, erin } = acct;
  const frank = accountFor('frank');
  const grace = accountFor('grace');
  const heidi = accountFor('heidi');

  // block 2: deployments
  const box = (await d.tx(alice, { data: deployData(art['StateBox.sol:StateBox'], [7n]), gas: 1_500_000n, label: 'deploy StateBox' })).created!;
  const token = (
    await d.tx(alice, {
      data: deployData(art['Token.sol:Token'], ['Tracenode Token', 'TNT', 1_000_000n * ETHER]),
      gas: 2_000_000n,
      label: 'deploy Token',
    })
  ).created!;
  const factory = (await d.tx(bob, { data: deployData(art['Factory.sol:Factory']), gas: 1_500_000n, label: 'deploy Factory' })).created!;
  await d.mine();
  await d.mineEmpty(1); // 3
  const S = art['StateBox.sol:StateBox'];
  // Token balances, mirrored here so that no transfer ever empties a balance (a zero write).
  const ledger = new Map<Address, bigint>([[alice.address, 1_000_000n * ETHER]]);
  const move = (from: KeyedAccount, to: KeyedAccount, amount: bigint) => {
    const b = ledger.get(from.address) ?? 0n;
    if (b <= amount) throw new Error(`state scenario: ${from.name} would send ${amount} of ${b} tokens`);
    ledger.set(from.address, b - amount);
    ledger.set(to.address, (ledger.get(to.address) ?? 0n) + amount);
  };
  const transfer = (from: KeyedAccount, to: KeyedAccount, amount: bigint, extra: TxOptions = {}) => {
    move(from, to, amount);
    return d.tx(from, {
      to: token,
      data: calldata('transfer(address,uint256)', to.address, amount),
      gas: 100_000n,
      label: `transfer ${from.name}→${to.name}`,
      ...extra,
    });
  };
  // 4
  await d.tx(alice, { to: box, data: functionData(S, 'setPlain', [11n, 22n, tag('tag-1')]), label: 'setPlain' });
  await transfer(alice, bob, 1000n * ETHER);
  await d.tx(alice, { to: frank.address, value: ETHER, gas: 21_000n, type: 0, label: 'ETH alice→frank (legacy)' });
  await d.mine();
  // 5
  await d.tx(bob, { to: box, data: calldata('bump(uint256)', 5n), gas: 150_000n, label: 'bump 5' });
  await d.tx(bob, { to: box, data: calldata('credit(address,uint256)', alice.address, 100n), label: 'credit alice 100' });
  await transfer(alice, carol, 500n * ETHER, {
    type: 1,
    accessList: [{ address: token, storageKeys: [mappingSlot(alice.address, 3), mappingSlot(carol.address, 3)] }],
    label: 'transfer alice→carol (2930)',
  });
  const salt1 = tag('salt-1');
  const child1 = create2Address(factory, salt1, deployData(art['Factory.sol:Child'], [11n]));
  await d.tx(carol, { to: factory, data: calldata('create2(bytes32,uint256)', salt1, 11n), value: ETHER / 4n, gas: 400_000n, label: 'factory create2 salt-1' });
  await d.mine();
  // 6
  await d.tx(alice, { to: box, data: calldata('setGrid(address,uint256,uint256)', alice.address, 1n, 1n), label: 'grid alice/1' });
  await d.tx(alice, { to: box, data: calldata('setGrid(address,uint256,uint256)', bob.address, 1n, 2n), label: 'grid bob/1' });
  await d.tx(carol, { to: box, data: calldata('setGrid(address,uint256,uint256)', alice.address, 2n, 3n), label: 'grid alice/2' });
  await d.tx(bob, { to: token, data: calldata('approve(address,uint256)', dave.address, 300n * ETHER), gas: 80_000n, label: 'approve bob→dave 300' });
  await d.mine();
  await d.mineEmpty(1); // 7
  // 8
  const doomedTx = await d.tx(dave, {
    data: deployData(art['Factory.sol:Doomed'], [dave.address]),
    value: 2n * ETHER,
    gas: 400_000n,
    label: 'deploy Doomed (2 ether)',
  });
  const doomed = doomedTx.created!;
  await d.tx(erin, { to: box, data: functionData(S, 'setNote', ['hello']), gas: 100_000n, label: 'note (short)' });
  // a contract's nonce starts at 1 (EIP-161); the CREATE2 of block 5 made it 2
  const child2 = createAddress(factory, 2);
  await d.tx(erin, { to: factory, data: calldata('create(uint256)', 21n), value: ETHER / 10n, gas: 400_000n, label: 'factory create' });
  await d.mine();
  // 9
  move(bob, erin, 100n * ETHER); // allowance 300 → 200
  await d.tx(dave, {
    to: token,
    data: calldata('transferFrom(address,address,uint256)', bob.address, erin.address, 100n * ETHER),
    gas: 100_000n,
    label: 'transferFrom bob→erin by dave',
  });
  await d.tx(carol, { to: box, data: calldata('push(uint256)', 5n), gas: 100_000n, label: 'push 5' });
  await d.tx(carol, { to: box, data: calldata('push(uint256)', 6n), gas: 100_000n, label: 'push 6' });
  await d.tx(dave, { to: box, data: calldata('bump(uint256)', 3n), gas: 150_000n, label: 'bump 3' });
  await d.tx(erin, { to: box, data: calldata('credit(address,uint256)', erin.address, 0n), expect: 'revert', label: 'credit 0 (reverts)' });
  await d.mine();
  // 10: Doomed self-destructs (a later tx than its creation): its 2 ether move to grace (new account)
  await d.tx(dave, { to: doomed, data: calldata('destroy(address)', grace.address), gas: 100_000n, label: 'Doomed.destroy → grace' });
  await d.tx(bob, { to: grace.address, value: ETHER / 2n, gas: 21_000n, label: 'ETH bob→grace' });
  await d.mine();
  await d.mineEmpty(1); // 11
  // 12
  await d.tx(erin, { to: box, data: functionData(S, 'setNote', ['a note of forty characters, long enough!']), gas: 150_000n, label: 'note (long)' });
  await d.tx(bob, { to: box, data: calldata('credit(address,uint256)', bob.address, 200n), label: 'credit bob 200' });
  await d.tx(bob, { to: box, data: calldata('credit(address,uint256)', alice.address, 101n), label: 'credit alice 101 (overwrite)' });
  await d.mine();
  // 13
  const salt2 = tag('salt-2');
  const child3 = create2Address(factory, salt2, deployData(art['Factory.sol:Child'], [12n]));
  await d.tx(carol, { to: factory, data: calldata('create2(bytes32,uint256)', salt2, 12n), gas: 400_000n, label: 'factory create2 salt-2' });
  await d.tx(alice, { to: child1, data: calldata('set(uint256)', 99n), label: 'child1.set 99' });
  await transfer(carol, frank, ETHER);
  await d.mine();
  // 14: the same slot written by three transactions of one block
  await d.tx(alice, { to: box, data: calldata('bump(uint256)', 10n), gas: 300_000n, label: 'bump 10' });
  await d.tx(bob, { to: box, data: calldata('bump(uint256)', 1n), gas: 150_000n, label: 'bump 1' });
  await d.tx(carol, { to: box, data: calldata('bump(uint256)', 2n), gas: 150_000n, label: 'bump 2' });
  await d.mine();
  await d.mineEmpty(1); // 15
  // 16
  await d.tx(alice, { to: box, data: calldata('setGrid(address,uint256,uint256)', alice.address, 1n, 4n), label: 'grid alice/1 overwrite' });
  await d.tx(alice, { to: box, data: functionData(S, 'setPlain', [12n, 23n, tag('tag-2')]), label: 'setPlain 2' });
  await d.tx(erin, { to: heidi.address, value: 3n * ETHER, gas: 21_000n, label: 'ETH erin→heidi' });
  await d.tx(alice, { to: doomed, value: (3n * ETHER) / 10n, gas: 50_000n, label: 'ETH → destroyed Doomed (code stays)' });
  await d.mine();
  // 17: a ring of token transfers
  await transfer(bob, carol, 10n * ETHER);
  await transfer(carol, dave, 9n * ETHER);
  await transfer(dave, erin, 8n * ETHER);
  await transfer(erin, alice, 7n * ETHER);
  await d.mine();
  // 18
  await d.tx(erin, {
    to: box,
    data: functionData(S, 'setNote', ['an even longer note: seventy characters of text, stored over 3 slots.']),
    gas: 200_000n,
    label: 'note (longer)',
  });
  await d.tx(carol, { to: box, data: calldata('push(uint256)', 7n), gas: 100_000n, label: 'push 7' });
  await d.mine();
  await d.mineEmpty(1); // 19
  // rounds of four blocks until the target height
  const users = [alice, bob, carol, dave, erin];
  let round = 0;
  while (d.head + 4 <= blocks) {
    round++;
    const u = users[round % users.length];
    const v = users[(round + 1) % users.length];
    const r = BigInt(round);
    await d.tx(u, { to: box, data: calldata('bump(uint256)', r), gas: 100_000n + 25_000n * r, label: `round ${round}: bump` });
    await d.tx(v, { to: box, data: calldata('credit(address,uint256)', u.address, BigInt(1000 + round)), label: `round ${round}: credit` });
    await transfer(u, v, r * (ETHER / 1000n), { label: `round ${round}: transfer` });
    await d.mine();
    await d.tx(v, {
      to: box,
      data: calldata('setGrid(address,uint256,uint256)', v.address, BigInt(round % 3), BigInt(round + 10)),
      label: `round ${round}: grid`,
    });
    await d.tx(u, { to: box, data: calldata('push(uint256)', BigInt(round + 100)), gas: 100_000n, label: `round ${round}: push` });
    await d.mine();
    await d.mineEmpty(1);
    await d.tx(u, { to: v.address, value: r * GWEI, gas: 21_000n, type: round % 2 ? 0 : 2, label: `round ${round}: ETH` });
    await d.tx(v, {
      to: box,
      data: functionData(S, 'setPlain', [BigInt(100 + round), BigInt(200 + round), tag(`tag-r${round}`)]),
      label: `round ${round}: setPlain`,
    });
    await d.mine();
  }
  while (d.head < blocks) await d.mineEmpty(1);

  return {
    contracts: { StateBox: box, Token: token, Factory: factory, Doomed: doomed, ChildSalt1: child1, ChildCreate: child2, ChildSalt2: child3 },
    accounts: Object.fromEntries([...users, frank, grace, heidi].map((a) => [a.name, a.address])),
    slots: {
      StateBox: {
        plainA: slotHex(0),
        plainB: slotHex(1),
        ownerAndPackedCount: slotHex(2),
        tag: slotHex(3),
        counter: slotHex(4),
        'credits[alice]': mappingSlot(alice.address, 5),
        'credits[bob]': mappingSlot(bob.address, 5),
        'grid[alice][1]': mappingSlot(1n, mappingSlot(alice.address, 6)),
        'grid[alice][2]': mappingSlot(2n, mappingSlot(alice.address, 6)),
        'grid[bob][1]': mappingSlot(1n, mappingSlot(bob.address, 6)),
        'items.length': slotHex(7),
        'items[0]': keccak256(slotHex(7)),
        note: slotHex(8),
        'note data[0]': keccak256(slotHex(8)),
      },
      Token: {
        totalSupply: slotHex(2),
        'balanceOf[alice]': mappingSlot(alice.address, 3),
        'balanceOf[bob]': mappingSlot(bob.address, 3),
        'allowance[bob][dave]': mappingSlot(dave.address, mappingSlot(bob.address, 4)),
      },
      Factory: { 'children.length': slotHex(0) },
      Doomed: { owner: slotHex(0), stash: slotHex(1) },
    },
    notes: [
      `StateBox deployed in block 2; counter (slot 4) is overwritten in blocks 5, 9, 14 (three txs) and every round.`,
      `Doomed created in block 8 with 2 ether, self-destructs in block 10 (EIP-6780: only its balance moves, to grace); gets 0.3 ether again in block 16.`,
      `Factory: CREATE2 children in blocks 5 (salt-1, value 0.25 ether) and 13 (salt-2), a CREATE child in block 8.`,
      `Block 9 has a reverting tx (StateBox.credit(erin, 0)).`,
    ],
  };
}

/** `state`: 32 blocks by default (at least 19), rounds of four blocks after block 19. */
export const STATE_SCENARIO: Scenario = {
  files: ['StateBox.sol', 'Token.sol', 'Factory.sol'],
  defaultBlocks: 32,
  users: 0,
  checkRaw: true,
  anvilArgs: [],
  run,
};
