// Owns the demo chain's README.md (fixtures/demo/README.md): provenance, summary, a cheat sheet of
// values for curl examples, the fork schedule, accounts, contracts, storage histories, uncles and
// rewards, transactions worth tracing, addresses for trace_filter, logs, eth_call examples and a
// table of every block. `test/demoChain.test.ts` compares it byte for byte.
import { type Address, bytesToHex, type Hex, keccak256, numberToHex, stringToBytes } from 'viem';
import { functionData } from '../lib/abi.js';
import { BLOB_DATA, type BlockInfo, type DemoChain, HEAVY_ROUNDS } from './buildDemoChain.js';
import {
  alice,
  BEACON_ROOTS,
  bob,
  CANCUN_BLOCK,
  CANCUN_TIME,
  CHAIN_ID,
  ETHER,
  FORK,
  GENESIS_GAS_LIMIT,
  GENESIS_TIME,
  keyed,
  LAST_BLOCK,
  MERGE_BLOCK,
  miner,
  POS_SPACING,
  POW_SPACING,
  rare1,
  rare2,
  rare3,
  SHANGHAI_BLOCK,
  SHANGHAI_TIME,
  STATEBOX,
  uncleMiner1,
  uncleMiner2,
  uncleMiner3,
} from './demoParams.js';
import { SALT1 } from './planTypes.js';
import type { SlotValue, WatchHistory } from './storageWatch.js';

const code = (s: string | bigint | number): string => `\`${s}\``;
const qty = (v: bigint | number): Hex => numberToHex(v);
/** Wei as ether, without trailing zeros. */
const fmtEth = (wei: bigint): string => {
  const whole = wei / ETHER;
  const frac = (wei % ETHER).toString().padStart(18, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : `${whole}`;
};
/** ethereumjs names the latest active fork; the Glacier forks and mergeNetsplitBlock change no EVM rules. */
const FORK_NAMES: Record<string, string> = { muirGlacier: 'istanbul', grayGlacier: 'london', mergeNetsplitBlock: 'paris' };

/** `x`, which the README needs: a missing one is a generator bug. */
function must<T>(x: T | undefined, what: string): T {
  if (x === undefined) throw new Error(`README: no ${what}`);
  return x;
}

/** The README of the demo chain. */
export function renderDemoReadme(chain: DemoChain): string {
  const { blocks, blockInfo, txInfo, storageHistory, A, C, solcVersion, terminalTotalDifficulty, blobVersionedHashes, heavyGas } = chain;
  const genesisBlock = blocks[0];
  const head = blocks[blocks.length - 1];
  const L: string[] = [];
  const push = (...lines: string[]) => L.push(...lines);
  const nameOf = new Map<string, string>(keyed.map((a) => [a.address.toLowerCase(), a.name]));
  for (const [k, v] of Object.entries(A)) nameOf.set(v.toLowerCase(), k);
  const who = (addr: Address | undefined) => (addr ? (nameOf.get(addr.toLowerCase()) ?? addr) : '(create)');
  const bi = (n: number): BlockInfo => blockInfo[n - 1];
  const txByLabel = txInfo.filter((t) => t.label);
  const uncleBlocks = blockInfo.filter((b) => b.uncles.length > 0);
  const fmtSlotValue = (w: WatchHistory, v: SlotValue) => {
    if (!v.exists) return 'account absent';
    if (w.what === 'owner' || w.what === 'lastSender') return v.value === 0n ? '0' : who(numberToHex(v.value, { size: 20 }));
    if (w.what === 'lastBlobHash') return numberToHex(v.value, { size: 32 });
    return v.value.toString();
  };
  const forkName = (hf: string) => FORK_NAMES[hf] ?? hf;
  const deployTx = (addr: Address) => txInfo.find((t) => t.created && t.created.toLowerCase() === addr.toLowerCase());
  const topicTransfer = keccak256(stringToBytes('Transfer(address,address,uint256)'));
  const lastPow = bi(MERGE_BLOCK - 1);
  const firstPos = bi(MERGE_BLOCK);
  const totalUncles = blockInfo.reduce((s, b) => s + b.uncles.length, 0);
  const logBlocks = blockInfo.filter((b) => b.logCount > 0);

  function cheatSheet() {
    const t = (prefix: string) => {
      const x = txInfo.find((y) => y.label?.startsWith(prefix));
      if (!x) throw new Error(`README: no tx labelled ${prefix}`);
      return `${code(x.hash)} (block ${x.block})`;
    };
    const w = (contract: string, what: string) => {
      const x = [...storageHistory.values()].find((y) => y.contract === contract && y.what === what);
      if (!x) throw new Error(`README: no watched slot ${contract}.${what}`);
      return x;
    };
    const bal = w('StateBox', 'balances[alice]');
    const grid = w('StateBox', 'grid[alice][7]');
    const one = uncleBlocks.find((b) => b.uncles.length === 1)!;
    const two = uncleBlocks.find((b) => b.uncles.length === 2)!;
    const hist = (x: WatchHistory) => x.history.map((v) => `${v.block}: ${fmtSlotValue(x, v)}`).join(' → ');
    return [
      `- Storage contract StateBox ${code(STATEBOX)}: slot ${code('0x0')} counter (block: value ${hist(w('StateBox', 'counter'))});`,
      `  balances[alice] slot ${code(bal.slot)} (${hist(bal)});`,
      `  grid[alice][7] (nested mapping) slot ${code(grid.slot)} (${hist(grid)}).`,
      `- Token DemoToken ${code(A.DemoToken)}; alice ${code(alice.address)}, bob ${code(bob.address)}.`,
      `- Uncles: block ${one.number} (${qty(one.number)}) has one uncle, block ${two.number} (${qty(two.number)}) has two (${two.uncles.map((u) => `distance ${two.number - u.number}`).join(', ')}); block 15 (0xf) has one at distance 3.`,
      `- Merge: block ${MERGE_BLOCK} (${qty(MERGE_BLOCK)}) is the first PoS block; block ${MERGE_BLOCK - 1} the last with reward traces.`,
      `- trace_transaction: all call kinds ${t('Caller.allKinds')}; CREATE2 ${t('Factory.create2{')};`,
      `  nested ${t('Caller.deep(3')}; caught failures incl. out-of-gas subcall ${t('Caller.tryAll')};`,
      `  SELFDESTRUCT ${t('Child2.kill')}; top-level revert with reason ${t('FAILS: DemoToken.transferFrom')}.`,
      `- trace_block with rewards: block ${two.number} (${qty(two.number)}); trace_filter toAddress rare-3 ${code(rare3.address)} → one internal call in block 33.`,
      `- eth_getLogs: DemoToken Transfer logs in blocks 8–64; block 15 (0xf) has ${bi(15).logCount} logs.`,
    ];
  }

  push(
    '# tracenode demo chain',
    '',
    '**Generated file — do not edit.** `npx tsx scripts/genDemo.ts` writes `genesis.json`, `chain.rlp` and this README;',
    '`test/demoChain.test.ts` checks that regenerating reproduces all three byte for byte and that a plain',
    '@ethereumjs import executes every block to its header stateRoot.',
    '',
    '## Provenance',
    '',
    '- Generator: `scripts/genDemo.ts` (TypeScript, run with tsx). Regenerate with `npx tsx scripts/genDemo.ts [outDir]`',
    '  (default `fixtures/demo`). Deterministic: keys are keccak256 of fixed strings, timestamps and extraData are',
    '  fixed, signatures are RFC 6979, no randomness and no clock.',
    `- Contracts: \`scripts/demo/*.sol\`, compiled at generation time with solc-js ${solcVersion}`,
    '  (optimizer off, `metadata.bytecodeHash: "none"`). evmVersion per contract: `StateBox` **byzantium** (it is',
    '  in genesis and runs from block 1 under Byzantium rules; solc prints a deprecation warning for it), `DemoToken`,',
    '  `Logic`, `Thrower`, `Caller`, `Child`, `Factory`, `Probe` **london**, `BlobProbe` **cancun**.',
    '- Execution: @ethereumjs/vm 10.1.3 `runBlock({generate: true})` per block; each finished block is put into an',
    '  @ethereumjs/blockchain with `validateBlocks: true` (difficulty, gas limit, base fee, uncle rules, withdrawals,',
    '  blob gas are all checked while generating).',
    '- **PoW seals are not real**: pre-merge `nonce`/`mixHash` are arbitrary (keccak-derived) values, not ethash',
    '  proofs — as in the ethereum/tests `NoProof` chains. Import without seal verification (ethereumjs',
    '  `validateConsensus: false`; tracenode does not verify ethash). Everything else is consensus-valid.',
    "- Uncles are real headers: each is an empty block built on a canonical ancestor and executed on that ancestor's",
    '  state (its stateRoot includes its own mining reward); they are not in chain.rlp as blocks, only as ommers.',
    '',
    '## Summary',
    '',
    `- Chain id: **${CHAIN_ID}** (${qty(CHAIN_ID)}); \`net_version\` ${CHAIN_ID}.`,
    `- Genesis: block 0 = ${code(bytesToHex(genesisBlock.hash()))} (stateRoot ${code(bytesToHex(genesisBlock.header.stateRoot))}), timestamp ${GENESIS_TIME}, gasLimit ${GENESIS_GAS_LIMIT}, difficulty 0x20000, extraData "tracenode demo chain".`,
    `- Head: block ${head.header.number} = ${code(bytesToHex(head.hash()))}`,
    `- ${blocks.length - 1} blocks after genesis: 1–${MERGE_BLOCK - 1} PoW (${uncleBlocks.length} of them with uncles, ${totalUncles} uncles in total), ${MERGE_BLOCK}–${LAST_BLOCK} PoS.`,
    `- ${txInfo.length} transactions (${txInfo.filter((t) => t.status === 0).length} failed but mined), types: ${[0, 1, 2, 3]
      .map((ty) => `${txInfo.filter((t) => t.type === ty).length}× type ${ty}`)
      .join(', ')}.`,
    `- ${blockInfo.reduce((s, b) => s + (b.withdrawals ?? 0), 0)} withdrawals in ${
      blockInfo.filter((b) => b.withdrawals).length > 0
        ? blockInfo
            .filter((b) => (b.withdrawals ?? 0) > 0)
            .map((b) => b.number)
            .join(', ')
        : '—'
    }; one blob transaction (block ${txInfo.find((t) => t.type === 3)!.block}; one blob holding "${BLOB_DATA}", versioned hash ${code(blobVersionedHashes[0])}, KZG commitment computed with micro-eth-signer; only the versioned hash is on chain).`,
    '',
    '## Cheat sheet (values for curl examples)',
    '',
    ...cheatSheet(),
    '',
    '## Chain config (genesis.json `config`)',
    '',
    '| fork | activation | first block |',
    '|---|---|---|',
    '| homestead, eip150 (Tangerine Whistle), eip155/eip158 (Spurious Dragon), byzantium | block 0 | 0 |',
    `| constantinople, petersburg, istanbul, muirGlacier | block ${FORK.constantinople} | ${FORK.constantinople} |`,
    `| berlin | block ${FORK.berlin} | ${FORK.berlin} |`,
    `| london, arrowGlacier, grayGlacier | block ${FORK.london} (base fee starts at 1 gwei, gas limit 15M → 30M) | ${FORK.london} |`,
    `| paris (merge) | \`mergeNetsplitBlock\` ${MERGE_BLOCK}, \`terminalTotalDifficulty\` ${terminalTotalDifficulty} (= total difficulty of block ${MERGE_BLOCK - 1}) | ${MERGE_BLOCK} |`,
    `| shanghai | \`shanghaiTime\` ${SHANGHAI_TIME} | ${SHANGHAI_BLOCK} |`,
    `| cancun | \`cancunTime\` ${CANCUN_TIME}; \`blobSchedule.cancun\` target 3, max 6, baseFeeUpdateFraction 3338477 | ${CANCUN_BLOCK} |`,
    '| prague and later | not enabled | — |',
    '',
    'Prague is left out on purpose: it would need the EIP-2935/7002/7251 system contracts and a deposit contract address',
    'in genesis plus EIP-7685 requests in every block; Cancun is the last fork here.',
    'Block rewards (PoW): 3 ETH before Constantinople (blocks 1–3), 2 ETH from block 4; none after the merge.',
    `Block times: ${POW_SPACING} s before the merge, ${POS_SPACING} s after. PoS blocks: difficulty 0, nonce 0, \`mixHash\` =`,
    'prevRandao = keccak256("tracenode-demo:prevrandao:<n>"); `parentBeaconBlockRoot` = keccak256("tracenode-demo:beacon-block-root:<n>").',
    '',
    '## Accounts (demo keys — public, never use them anywhere else)',
    '',
    'Private key = keccak256("tracenode-demo:<name>").',
    '',
    '| name | address | private key | role |',
    '|---|---|---|---|',
  );
  const roles: Record<string, string> = {
    alice: 'funded (10,000 ETH), deploys every contract, StateBox owner at genesis',
    bob: 'funded (1,000 ETH)',
    carol: 'funded (1,000 ETH)',
    dave: 'funded (1,000 ETH)',
    miner: 'coinbase of every PoW block (block rewards)',
    'uncle-miner-1': `coinbase of uncles in blocks ${uncleBlocks
      .filter((b) => b.uncles.some((u) => u.miner.toLowerCase() === uncleMiner1.address.toLowerCase()))
      .map((b) => b.number)
      .join(', ')}`,
    'uncle-miner-2': `coinbase of uncles in blocks ${uncleBlocks
      .filter((b) => b.uncles.some((u) => u.miner.toLowerCase() === uncleMiner2.address.toLowerCase()))
      .map((b) => b.number)
      .join(', ')}`,
    'uncle-miner-3': `coinbase of uncles in blocks ${uncleBlocks
      .filter((b) => b.uncles.some((u) => u.miner.toLowerCase() === uncleMiner3.address.toLowerCase()))
      .map((b) => b.number)
      .join(', ')}`,
    'fee-recipient-a': 'fee recipient (coinbase) of even PoS blocks',
    'fee-recipient-b': 'fee recipient (coinbase) of odd PoS blocks',
    'withdrawal-1': 'withdrawal address (validator 1, 4)',
    'withdrawal-2': 'withdrawal address (validators 2, 3)',
    'rare-1': 'receives ETH in blocks 3 and 40 only (top-level transfers)',
    'rare-2': 'only appears in block 17, as the beneficiary (refundAddress) of a SELFDESTRUCT',
    'rare-3': 'only appears in block 33, as the target of an internal CALL with value',
  };
  for (const a of keyed) push(`| ${a.name} | ${code(a.address)} | ${code(a.privateKey)} | ${roles[a.name]} |`);

  push(
    '',
    '## Genesis alloc',
    '',
    '- alice 10,000 ETH; bob, carol, dave 1,000 ETH each.',
    '- Precompiles `0x…01` … `0x…0a` hold 1 wei each (as on mainnet, so touching them never creates an empty account).',
    `- EIP-4788 beacon roots contract at ${code(BEACON_ROOTS)} (canonical mainnet code, nonce 1).`,
    `- **StateBox** at ${code(STATEBOX)} with runtime code and storage (nonce 1): counter = 1, owner = alice,`,
    '  balances[alice] = 1000, grid[alice][7] = 42. So `eth_getStorageAt`/`eth_getProof` already have data at block 0.',
    '',
    '## Contracts',
    '',
    '| contract | address | created | source | notes |',
    '|---|---|---|---|---|',
  );
  const contractRows: [name: string, address: Address, createdBy: string | null, source: string, note: string][] = [
    ['StateBox', STATEBOX, 'genesis', 'StateBox.sol', 'plain slots, mapping, nested mapping'],
    ['DemoToken', A.DemoToken, null, 'DemoToken.sol', 'ERC-20 "TDT", 18 decimals, 1,000,000 minted to alice; Transfer/Approval logs'],
    ['Probe', A.Probe, null, 'Probe.sol', 'env(), blockHashOf(n), heavy(rounds); has a balance (SELFBALANCE)'],
    ['Logic', A.Logic, null, 'Calls.sol', 'target of DELEGATECALL / CALLCODE'],
    ['Thrower', A.Thrower, null, 'Calls.sol', 'fails with reason / custom error / Panic / out of gas'],
    ['Caller', A.Caller, null, 'Calls.sol', 'call kinds, nested calls, precompiles, caught failures'],
    ['Factory', A.Factory, null, 'Factory.sol', 'CREATE / CREATE2 / create+selfdestruct'],
    ['Child1', A.Child1, 'Factory.create{', 'Factory.sol (Child)', 'CREATE child; SELFDESTRUCT under Cancun in block 27 keeps its code'],
    [
      'Child2',
      A.Child2,
      'Factory.create2{',
      'Factory.sol (Child)',
      'CREATE2 child (salt 1): destroyed in block 17, re-created at the same address in block 19',
    ],
    ['BlobProbe', A.BlobProbe, null, 'BlobProbe.sol', 'BLOBHASH, BLOBBASEFEE, transient storage'],
  ];
  for (const [name, addr, where, src, note] of contractRows) {
    let created = where ?? '';
    if (where !== 'genesis') {
      const t = must(where ? txInfo.find((x) => x.label?.startsWith(where)) : deployTx(addr), `creation of ${name}`);
      created = `block ${t.block}, tx ${t.index} ${code(t.hash)}${where ? ' (internal)' : ''}`;
    }
    push(`| ${name} | ${code(addr)} | ${created} | ${src} | ${note} |`);
  }
  const cad = must(
    txInfo.find((t) => t.label?.startsWith('Factory.createAndDestroy')),
    'Factory.createAndDestroy',
  );
  push(
    '',
    `Child2 re-created: block 19 ${code(
      must(
        txInfo.find((t) => t.block === 19 && t.label),
        'block 19 tx',
      ).hash,
    )}. The contract created and destroyed inside`,
    `block ${cad.block}'s ${code(cad.hash)} never exists in any block's state.`,
    '',
    '## Storage slots worth reading',
    '',
    'Values are listed as `block: value` for every block where the value changed (decimal unless noted); a value holds',
    'until the next entry. Mapping slot = keccak256(pad32(key) . pad32(slot)); nested mapping `m[k1][k2]` =',
    'keccak256(pad32(k2) . keccak256(pad32(k1) . pad32(slot))).',
    '',
    '| contract | variable | how | slot | history |',
    '|---|---|---|---|---|',
  );
  for (const w of storageHistory.values()) {
    const hist = w.history.map((v) => `${v.block}: ${fmtSlotValue(w, v)}`).join(' → ');
    push(`| ${w.contract} ${code(w.address)} | ${w.what} | ${w.how} | ${code(w.slot)} | ${hist} |`);
  }

  push(
    '',
    '## Blocks with uncles, rewards, the merge',
    '',
    'Reward traces (`trace_block`): block reward = R + R/32 per uncle to the miner; uncle reward = (uncleNumber + 8 − blockNumber) × R / 8',
    `to the uncle's miner; R = 3 ETH (blocks 1–3), 2 ETH (blocks 4–19). Miner of every PoW block: miner ${code(miner.address)}.`,
    '',
    '| block | block hash | uncles | block reward (ETH) | uncle | uncle hash | uncle number (distance) | uncle miner | uncle reward (ETH) |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const b of uncleBlocks) {
    b.uncles.forEach((u, i) => {
      const first = i === 0;
      push(
        `| ${first ? b.number : ''} | ${first ? code(b.hash) : ''} | ${first ? b.uncles.length : ''} | ${first ? `${fmtEth(b.blockReward!)} (${qty(b.blockReward!)})` : ''} | ${i} | ${code(u.hash)} | ${u.number} (${b.number - u.number}) | ${who(u.miner)} ${code(u.miner)} | ${fmtEth(u.reward)} (${qty(u.reward)}) |`,
      );
    });
  }
  const londonUncle = must(
    uncleBlocks.flatMap((b) => b.uncles.map((u) => ({ b, u }))).find(({ u }) => u.baseFee !== undefined),
    'London-era uncle',
  );
  push(
    '',
    `- London-era uncles carry \`baseFeePerGas\` (e.g. uncle ${londonUncle.u.hash.slice(0, 10)}… of block ${londonUncle.b.number}: ${londonUncle.u.baseFee} wei); the block-3 and block-7 uncles have none.`,
    `- Blocks without uncles pay only the block reward, e.g. block 1: ${fmtEth(bi(1).blockReward!)} ETH, block 5: ${fmtEth(bi(5).blockReward!)} ETH.`,
    `- Last PoW block: ${MERGE_BLOCK - 1} = ${code(lastPow.hash)} (difficulty ${lastPow.difficulty}, total difficulty ${terminalTotalDifficulty} = TTD).`,
    `- First PoS block (merge): ${MERGE_BLOCK} = ${code(firstPos.hash)} (difficulty 0, no reward traces from here on).`,
    `- First Shanghai block: ${SHANGHAI_BLOCK} = ${code(bi(SHANGHAI_BLOCK).hash)}; first Cancun block: ${CANCUN_BLOCK} = ${code(bi(CANCUN_BLOCK).hash)}.`,
    `- Withdrawals: ${blockInfo
      .filter((b) => (b.withdrawals ?? 0) > 0)
      .map((b) => `block ${b.number} (${b.withdrawals})`)
      .join(', ')}; every block from ${SHANGHAI_BLOCK} has a withdrawals list (mostly empty).`,
    `- Heaviest block: 35 (gasUsed ${bi(35).gasUsed} > target 15,000,000), so the base fee rises from ${bi(35).baseFee} (block 35) to ${bi(36).baseFee} wei (block 36).`,
    '',
    '## Transactions worth tracing',
    '',
    'Parity traces omit zero-value precompile calls, so the sha256/ripemd160 STATICCALLs of `Caller.precompiles` do not',
    "appear; its CALL with value to identity (0x04) does. Delegatecall traces carry the parent frame's value.",
    '',
    '| what | block | idx | from → to | tx hash | status |',
    '|---|---|---|---|---|---|',
  );
  for (const t of txByLabel) {
    const to = t.created ? `new ${who(t.created)}` : who(t.to);
    push(`| ${t.label} | ${t.block} | ${t.index} | ${t.from.name} → ${to} | ${code(t.hash)} | ${t.status === 1 ? 'success' : `failed (${t.error})`} |`);
  }

  push(
    '',
    '## Addresses for trace_filter',
    '',
    '| address | name | appears in | as |',
    '|---|---|---|---|',
    `| ${code(rare1.address)} | rare-1 | blocks 3, 40 | \`action.to\` of top-level transfers |`,
    `| ${code(rare2.address)} | rare-2 | block 17 | \`refundAddress\` of a suicide trace |`,
    `| ${code(rare3.address)} | rare-3 | block 33 | \`action.to\` of an internal call (traceAddress [0]) |`,
    `| ${code(uncleMiner2.address)} | uncle-miner-2 | blocks ${roles['uncle-miner-2'].replace(/.*blocks /, '')} | \`author\` of uncle reward traces |`,
    `| ${code(uncleMiner3.address)} | uncle-miner-3 | blocks ${roles['uncle-miner-3'].replace(/.*blocks /, '')} | \`author\` of uncle reward traces |`,
    '',
    '## Logs',
    '',
    `Blocks with logs: ${logBlocks.map((b) => `${b.number} (${b.logCount})`).join(', ')}.`,
    `DemoToken Transfer topic0: ${code(topicTransfer)}; e.g. block 10 has ${bi(10).logCount} logs`,
    `(DemoToken Transfer/Approval and Probe Pinged). Filter example: \`{"fromBlock":"0x8","toBlock":"0x40","address":"${A.DemoToken.toLowerCase()}","topics":["${topicTransfer}"]}\`.`,
    '',
    '## eth_call examples (at `latest` unless noted)',
    '',
    '| call | to | data |',
    '|---|---|---|',
    `| DemoToken.balanceOf(alice) | ${code(A.DemoToken)} | ${code(functionData(C.DemoToken, 'balanceOf', [alice.address]))} |`,
    `| DemoToken.totalSupply() | ${code(A.DemoToken)} | ${code(functionData(C.DemoToken, 'totalSupply'))} |`,
    `| StateBox.counter() (differs per block) | ${code(STATEBOX)} | ${code(functionData(C.StateBox, 'counter'))} |`,
    `| StateBox.grid(alice, 7) | ${code(STATEBOX)} | ${code(functionData(C.StateBox, 'grid', [alice.address, 7]))} |`,
    `| Probe.env() — number, parent hash (BLOCKHASH), TIMESTAMP, COINBASE, DIFFICULTY/PREVRANDAO, GASLIMIT, BASEFEE, CHAINID, SELFBALANCE, ORIGIN, GASPRICE | ${code(A.Probe)} | ${code(functionData(C.Probe, 'env'))} |`,
    `| Probe.heavy(${HEAVY_ROUNDS}) — CPU benchmark: ${heavyGas} gas of execution at the head, linear in the rounds | ${code(A.Probe)} | ${code(functionData(C.Probe, 'heavy', [HEAVY_ROUNDS]))} |`,
    `| Probe.blockHashOf(19) | ${code(A.Probe)} | ${code(functionData(C.Probe, 'blockHashOf', [19]))} |`,
    `| Factory.predict(salt 1, 2) → Child2 | ${code(A.Factory)} | ${code(functionData(C.Factory, 'predict', [SALT1, 2]))} |`,
    `| BlobProbe.blobEnv() (Cancun blocks) | ${code(A.BlobProbe)} | ${code(functionData(C.BlobProbe, 'blobEnv'))} |`,
    `| Thrower.failWithReason() — reverts with Error(string) (error 3 + data) | ${code(A.Thrower)} | ${code(functionData(C.Thrower, 'failWithReason'))} |`,
    '',
    '## Every block',
    '',
    '| # | hash | fork | txs | uncles | withdrawals | logs | gasUsed | baseFee (wei) | miner / fee recipient |',
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const b of blockInfo) {
    push(
      `| ${b.number} | ${code(b.hash)} | ${forkName(b.hardfork)} | ${b.txCount} | ${b.uncles.length} | ${b.withdrawals ?? '—'} | ${b.logCount} | ${b.gasUsed} | ${b.baseFee ?? '—'} | ${who(b.miner)} |`,
    );
  }
  push('');
  return L.join('\n');
}
