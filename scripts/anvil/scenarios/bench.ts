// Owns the `bench` scenario (bench/): a realistic mix over many blocks (ERC-20 transfers, ERC-721
// mints and transfers, AMM swaps, deployments, reverting transactions, storage churn) from a
// seeded PRNG, a rare address that appears in exactly 5 blocks, one planned heavy block, and the
// figures the bench times against the chain.
import { numberToHex } from 'viem';
import { calldata, deployData, functionData, slotHex } from '../../lib/abi.js';
import { accountFor, ETHER, GWEI } from '../chainParams.js';
import type { Scenario, ScenarioContext, ScenarioFinish, ScenarioInfo } from '../scenario.js';

/** A small deterministic PRNG: mulberry32 (https://gist.github.com/tommyettinger/46a874533244883189143505d203312c). */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    big: (lo: bigint, hi: bigint) => lo + (BigInt(Math.floor(next() * 2 ** 32)) * (hi - lo)) / 2n ** 32n,
  };
}

/** Blocks 2..SETUP_END deploy the contracts and give every user tokens, approvals and an NFT. */
const SETUP_END = 8;
/**
 * Heavy.churn rewrites a bounded set of cells (new values each round), so the state does not grow
 * with it: anvil rebuilds its state root from the whole state on every block.
 */
const CHURN_CELLS = 2400;

async function run({ d, art, acct, blocks, log }: ScenarioContext): Promise<ScenarioInfo> {
  const rnd = prng(0x7ace);
  const T = art['Token.sol:Token'];
  const { alice, users } = acct;
  const rare = accountFor('rare');
  if (blocks < SETUP_END + 10) throw new Error(`bench needs at least ${SETUP_END + 10} blocks`);
  // 2: deployments
  const tokenA = (await d.tx(alice, { data: deployData(T, ['Bench Alpha', 'ALPHA', 10n ** 9n * ETHER]), gas: 2_000_000n, label: 'deploy ALPHA' })).created!;
  const tokenB = (await d.tx(alice, { data: deployData(T, ['Bench Beta', 'BETA', 10n ** 9n * ETHER]), gas: 2_000_000n, label: 'deploy BETA' })).created!;
  const nft = (await d.tx(alice, { data: art['Nft.sol:Nft'].bytecode, gas: 1_500_000n, label: 'deploy Nft' })).created!;
  const heavy = (await d.tx(alice, { data: art['Heavy.sol:Heavy'].bytecode, gas: 1_000_000n, label: 'deploy Heavy' })).created!;
  const factory = (await d.tx(alice, { data: art['Factory.sol:Factory'].bytecode, gas: 1_500_000n, label: 'deploy Factory' })).created!;
  const pair = (await d.tx(alice, { data: deployData(art['Pair.sol:Pair'], [tokenA, tokenB]), gas: 2_000_000n, label: 'deploy Pair' })).created!;
  await d.mine();
  // 3: airdrops (every user gets 1,000,000 of each token), liquidity
  const addrs = users.map((u) => u.address);
  await d.tx(alice, { to: tokenA, data: functionData(T, 'airdrop', [addrs, 1_000_000n * ETHER]), gas: 8_000_000n, label: 'airdrop ALPHA' });
  await d.tx(alice, { to: tokenB, data: functionData(T, 'airdrop', [addrs, 1_000_000n * ETHER]), gas: 8_000_000n, label: 'airdrop BETA' });
  await d.tx(alice, { to: tokenA, data: calldata('transfer(address,uint256)', pair, 10_000_000n * ETHER), gas: 100_000n, label: 'liquidity ALPHA' });
  await d.tx(alice, { to: tokenB, data: calldata('transfer(address,uint256)', pair, 20_000_000n * ETHER), gas: 100_000n, label: 'liquidity BETA' });
  await d.tx(alice, { to: pair, data: calldata('sync()'), gas: 150_000n, label: 'Pair.sync' });
  await d.mine();
  // 4..7: every user approves the pair (max allowance: never decremented) and gets one NFT
  const MAX = (1n << 256n) - 1n;
  const nftOwner: number[] = [-1]; // NFT id → user index (ids start at 1)
  const nftCount = new Array<number>(users.length).fill(0);
  const nftsOf = users.map((): number[] => []);
  const gotNft = (owner: number) => {
    nftOwner.push(owner);
    nftCount[owner]++;
    nftsOf[owner].push(nftOwner.length - 1);
  };
  let ui = 0;
  for (let b = 4; b <= SETUP_END - 1; b++) {
    const per = Math.ceil(users.length / (SETUP_END - 4));
    for (let k = 0; k < per && ui < users.length; k++, ui++) {
      const u = users[ui];
      await d.tx(u, { to: tokenA, data: calldata('approve(address,uint256)', pair, MAX), gas: 60_000n, label: 'approve ALPHA' });
      await d.tx(u, { to: tokenB, data: calldata('approve(address,uint256)', pair, MAX), gas: 60_000n, label: 'approve BETA' });
      await d.tx(alice, { to: nft, data: calldata('mint(address)', u.address), gas: 120_000n, label: 'mint' });
      gotNft(ui);
    }
    await d.mine();
  }
  while (d.head < SETUP_END) await d.mineEmpty(1);

  // rare address: exactly 5 blocks (value transfers to it), spread over the chain
  const span = blocks - SETUP_END;
  const rareBlocks = [0.1, 0.3, 0.5, 0.7, 0.9].map((f) => SETUP_END + 1 + Math.floor(f * span));
  const rareSet = new Set(rareBlocks);
  const heaviestPlanned = SETUP_END + 1 + Math.floor(0.6 * span);
  let churnFrom = 0;
  let salts = 0;
  const started = performance.now();
  const pickUser = () => rnd.int(users.length);
  /** Another user than `si`. */
  const otherUser = (si: number) => {
    const ti = pickUser();
    return ti === si ? (ti + 1) % users.length : ti;
  };
  for (let n = SETUP_END + 1; n <= blocks; n++) {
    if (n === heaviestPlanned) {
      // the heaviest block: 8 transactions that each fill 120 fresh storage cells (~21M gas)
      for (let k = 0; k < 8; k++) {
        const u = users[pickUser()];
        await d.tx(u, {
          to: heavy,
          data: calldata('churn(uint256,uint256)', BigInt(1_000_000 + 120 * k), 120n),
          gas: 3_200_000n,
          label: 'churn (heavy block)',
        });
      }
      await d.mine();
      continue;
    }
    const kind = rnd.next();
    const count = kind < 0.05 ? 0 : kind < 0.15 ? 1 + rnd.int(3) : 4 + rnd.int(9);
    if (rareSet.has(n)) await d.tx(users[pickUser()], { to: rare.address, value: GWEI * BigInt(n), gas: 21_000n, label: 'ETH → rare' });
    for (let k = 0; k < count; k++) {
      const r = rnd.next();
      const si = pickUser();
      const u = users[si];
      if (r < 0.32) {
        const ti = otherUser(si);
        const token = rnd.next() < 0.5 ? tokenA : tokenB;
        await d.tx(u, {
          to: token,
          data: calldata('transfer(address,uint256)', users[ti].address, rnd.big(ETHER / 1000n, ETHER)),
          gas: 80_000n,
          label: 'transfer',
        });
      } else if (r < 0.47) {
        const ti = pickUser();
        await d.tx(u, { to: nft, data: calldata('mint(address)', users[ti].address), gas: 120_000n, label: 'mint' });
        gotNft(ti);
      } else if (r < 0.57) {
        // move an NFT out of a wallet that holds at least two (its balance never drops to zero)
        if (nftCount[si] >= 2) {
          const ti = otherUser(si);
          const id = nftsOf[si].pop()!;
          await d.tx(u, {
            to: nft,
            data: calldata('transferFrom(address,address,uint256)', u.address, users[ti].address, BigInt(id)),
            gas: 80_000n,
            label: 'nft transfer',
          });
          nftCount[si]--;
          nftCount[ti]++;
          nftsOf[ti].push(id);
          nftOwner[id] = ti;
        } else {
          await d.tx(u, { to: nft, data: calldata('mint(address)', u.address), gas: 120_000n, label: 'mint (self)' });
          gotNft(si);
        }
      } else if (r < 0.8) {
        await d.tx(u, {
          to: pair,
          data: calldata('swap(bool,uint256,uint256,address)', rnd.next() < 0.5, rnd.big(ETHER / 100n, 10n * ETHER), 1n, u.address),
          gas: 150_000n,
          label: 'swap',
        });
      } else if (r < 0.86) {
        const ti = otherUser(si);
        await d.tx(u, { to: users[ti].address, value: rnd.big(GWEI, ETHER / 10n), gas: 21_000n, type: rnd.next() < 0.3 ? 0 : 2, label: 'ETH' });
      } else if (r < 0.89) {
        // deployments: a CREATE2 child through the factory, or a fresh token
        if (rnd.next() < 0.6) {
          salts++;
          await d.tx(u, { to: factory, data: calldata('create2(bytes32,uint256)', slotHex(salts), BigInt(salts)), gas: 250_000n, label: 'create2 child' });
        } else {
          await d.tx(u, { data: deployData(T, [`Bench ${n}`, `B${n}`, 1000n * ETHER]), gas: 1_500_000n, label: 'deploy token' });
        }
      } else if (r < 0.95) {
        // reverting transactions
        const f = rnd.int(3);
        if (f === 0)
          await d.tx(u, {
            to: tokenA,
            data: calldata('transfer(address,uint256)', alice.address, 10n ** 30n),
            gas: 80_000n,
            expect: 'revert',
            label: 'transfer too much',
          });
        else if (f === 1) {
          const owner = nftOwner[1 + rnd.int(nftOwner.length - 1)];
          const id = nftsOf[owner][0];
          const wrong = (owner + 1) % users.length;
          await d.tx(users[wrong], {
            to: nft,
            data: calldata('transferFrom(address,address,uint256)', users[wrong].address, users[owner].address, BigInt(id)),
            gas: 80_000n,
            expect: 'revert',
            label: 'nft not owner',
          });
        } else
          await d.tx(u, {
            to: pair,
            data: calldata('swap(bool,uint256,uint256,address)', true, ETHER, 10n ** 30n, u.address),
            gas: 150_000n,
            expect: 'revert',
            label: 'swap slippage',
          });
      } else {
        await d.tx(u, { to: heavy, data: calldata('churn(uint256,uint256)', BigInt(churnFrom), 20n), gas: 700_000n, label: 'churn' });
        churnFrom = (churnFrom + 20) % CHURN_CELLS;
      }
    }
    await d.mine();
    if (n % 1000 === 0) {
      await d.drain();
      const s = (performance.now() - started) / 1000;
      log(`bench: block ${n}/${blocks}, ${d.txCount} txs, ${((n - SETUP_END) / s).toFixed(1)} blocks/s`);
    }
  }
  const holder = users[0];
  return {
    contracts: { tokenA, tokenB, nft, pair, heavy, factory },
    accounts: { alice: alice.address, users: users.length, firstUser: users[0].address, lastUser: users[users.length - 1].address },
    rareAddress: rare.address,
    rareBlocks,
    bench: {
      token: tokenA,
      holder: holder.address,
      balanceOfCalldata: calldata('balanceOf(address)', holder.address),
      heavyCall: { to: heavy, data: calldata('work(uint256)', 20_000n), note: 'Heavy.work(20000): a pure loop of 20000 keccaks, for eth_call' },
      revertingCall: { from: holder.address, to: heavy, data: calldata('fail(uint256)', 1n), note: 'Heavy.fail(1): reverts with "heavy: no"' },
      heavyBlockPlanned: heaviestPlanned,
    },
  };
}

/** The heaviest block, the rare address's blocks checked, the heavy call's gas and the holder's balance. */
async function finish({ client, d, blocks, info }: ScenarioFinish): Promise<void> {
  const bench = info.bench!;
  let heaviest = blocks[0];
  for (const b of blocks) if (b.gasUsed > heaviest.gasUsed) heaviest = b;
  bench.heaviestBlock = heaviest.number;
  bench.heaviestBlockGasUsed = heaviest.gasUsed;
  bench.heaviestBlockTx = heaviest.txHashes[0];
  // the rare address: check it shows up in exactly the planned blocks (as a tx recipient)
  const seen = new Set<number | undefined>();
  for (const [h, e] of d.expect) if (e.label === 'ETH → rare') seen.add(blocks.find((b) => b.txHashes.includes(h))?.number);
  const seenSorted = [...seen].sort((a, b) => (a ?? -1) - (b ?? -1));
  if (seenSorted.join() !== info.rareBlocks!.join()) throw new Error(`rare address seen in ${[...seen]} not ${info.rareBlocks}`);
  const { heavyCall, revertingCall, holder, token, balanceOfCalldata } = bench;
  heavyCall.gas = Number(await client.request({ method: 'eth_estimateGas', params: [{ from: holder, to: heavyCall.to, data: heavyCall.data }] }));
  const balance = await client.request({ method: 'eth_call', params: [{ to: token, data: balanceOfCalldata }, 'latest'] });
  if (BigInt(balance) === 0n) throw new Error('bench holder has no tokens');
  bench.holderBalance = numberToHex(BigInt(balance));
  const reverted = await client
    .request({ method: 'eth_call', params: [{ from: revertingCall.from, to: revertingCall.to, data: revertingCall.data }, 'latest'] })
    .then(
      () => false,
      (err: unknown) => {
        if (!/revert/i.test(String(err instanceof Error ? err.message : err))) throw err;
        return true;
      },
    );
  if (!reverted) throw new Error('revertingCall did not revert');
}

/** `bench`: 2000 blocks by default (at least 18), 100 funded users. */
export const BENCH_SCENARIO: Scenario = {
  files: ['Token.sol', 'Nft.sol', 'Pair.sol', 'Heavy.sol', 'Factory.sol'],
  defaultBlocks: 2000,
  users: 100,
  // bench chains have tens of thousands of transactions: their bytes are the signed ones
  checkRaw: false,
  // anvil keeps the states of the last 64 blocks in memory and none on disk: it serves the bench
  // chain's state for its last 64 blocks only
  anvilArgs: ['--prune-history', '64'],
  run,
  finish,
};
