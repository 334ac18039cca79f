import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBlockHeaderFromRPC, type JSONRPCBlock } from '@ethereumjs/block';
import { parseGethGenesisState } from '@ethereumjs/common';
import { bytesToHex, createAddressFromString, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util';
import { createVM, runBlock } from '@ethereumjs/vm';
import type { Hex } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createGenesis } from '../../src/chain/genesis.js';
import { type EthereumChain, openChain } from '../../src/chain/open.js';
import { withoutSystemWrites } from '../../src/execution/evm/common.js';
import { blockFromRpc } from '../../src/follow/blockFromRpc.js';
import { readNodeGenesis } from '../../src/follow/nodeGenesis.js';
import { Upstream } from '../../src/follow/upstream.js';
import { BlockImporter } from '../../src/import/blockImporter.js';
import { initDatadirFromNode } from '../../src/import/init.js';
import { FIXTURES, tempDir } from '../helpers/chains.js';
import { describeWithHardhat, type HardhatNode, startHardhatNode } from '../helpers/hardhatPeer.js';
import { testConfig } from '../helpers/testConfig.js';

/**
 * Hardhat 2's own node (test/helpers/hardhatPeer.ts) at its defaults (hardfork osaka) with
 * `allowBlocksWithSameTimestamp`: what it does that other clients do not, and how tracenode takes
 * each (the whole chain followed end to end: devNodes.test.ts).
 *
 * - Its genesis: no file; `init --from-node` reads it (src/follow/nodeGenesis.ts): 20 accounts,
 *   the EIP-4788 contract, a reverting stub at the EIP-2935 address, no eth_config (the fork comes
 *   from block 0's fields and P256VERIFY). Its block 0 gives the transactionsRoot keccak256("")
 *   (EDR's `EmptyBlock::empty`), which no geth genesis expresses: init keeps Hardhat's header.
 * - Its blocks skip the EIP-4788 beacon-root and EIP-2935 parent-hash writes although both
 *   addresses have code: executed with them, a block does not give Hardhat's state root; without
 *   them (`withoutSystemWrites`) it does. The importer finds this under lenient checks only.
 * - `hardhat_mine 0x20` mines the first two blocks and the last, and reserves the 29 between:
 *   served with a zero parentHash, keccak256("") as transactionsRoot, zero mixHash and
 *   parentBeaconBlockRoot, a zero coinbase, a gas limit of 1,000,000 and their parent's base fee.
 * Each fact is asserted as it is, so that a Hardhat that changes fails here.
 */

const describe = describeWithHardhat('following a Hardhat node');
const tmp = tempDir('tracenode-hardhat-');
const MNEMONIC = 'test test test test test test test test test test test junk';
/** Account 0 of the mnemonic (m/44'/60'/0'/0/0), as `hardhat node` prints it. */
const ACCOUNT0_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const BEACON_ROOTS = '0x000f3df6d732807ef1319fb7b8bb8522d0beac02';
const HISTORY = '0x0000f90827f1c53a10cb7a02335b175320002935';

type Json = Record<string, unknown>;
let node: HardhatNode;
let genesis: Awaited<ReturnType<typeof readNodeGenesis>>;
let chain: EthereumChain;
/** The block that mined the transfer, as the node serves it with its transactions. */
let mined: Json;

beforeAll(async () => {
  node = await startHardhatNode(join(tmp.dir, 'hardhat'));
  genesis = await readNodeGenesis(new Upstream(node.url, { requestTimeoutMs: 10_000 }));
}, 30_000);

afterAll(async () => {
  await chain?.close();
  await node?.stop();
  tmp.cleanup();
});

describe('a Hardhat node as upstream', () => {
  it('has the 20 accounts of its mnemonic with 10000 ETH each, the EIP-4788 contract and a stub at EIP-2935; its fork is found without eth_config', async () => {
    expect(node.hardfork).toBe('osaka');
    expect(genesis.info).toEqual({ fork: 'osaka', forkSource: 'block 0 fields and P256VERIFY', accounts: 22 });
    expect(genesis.common.hardfork()).toBe('osaka');
    await expect(node.call('eth_config')).rejects.toThrow('Method eth_config is not supported');
    const alloc = genesis.genesis.alloc as Record<string, { balance: string; code?: string }>;
    const funded = Array.from({ length: 20 }, (_, i) => mnemonicToAccount(MNEMONIC, { addressIndex: i }).address.toLowerCase());
    expect(Object.keys(alloc).sort()).toEqual([...funded, BEACON_ROOTS, HISTORY].sort());
    for (const a of funded) expect(alloc[a]).toEqual({ balance: `0x${(10_000n * 10n ** 18n).toString(16)}` });
    // The beacon roots contract is EIP-4788's, as the execution-apis chain deploys it (there with a balance).
    const reference = JSON.parse(readFileSync(join(FIXTURES, 'execution-apis-prague/genesis.json'), 'utf8')).alloc as Record<string, { code: string }>;
    expect(alloc[BEACON_ROOTS]).toEqual({ balance: '0x0', code: reference[BEACON_ROOTS.slice(2)].code });
    // At the history address sits Hardhat's Solidity stub that reverts "EIP2935 is not supported in Hardhat yet".
    expect(alloc[HISTORY].balance).toBe('0x0');
    expect(alloc[HISTORY].code).not.toBe(reference[HISTORY.slice(2)].code);
    expect(Buffer.from(alloc[HISTORY].code!.slice(2), 'hex').toString('latin1')).toContain('EIP2935 is not supported in Hard');
  });

  it("init keeps Hardhat's own block 0: its hash and state root; the computed header differs only in its transactionsRoot", async () => {
    const block0 = (await node.call('eth_getBlockByNumber', ['0x0', true])) as Json;
    const init = await initDatadirFromNode(join(tmp.dir, 'data'), genesis, testConfig());
    expect(init).toEqual({ hash: block0.hash, stateRoot: block0.stateRoot, alreadyInitialised: false });
    expect(bytesToHex(genesis.proofRoot)).toBe(block0.stateRoot);

    const theirs = createBlockHeaderFromRPC(block0 as unknown as JSONRPCBlock, { common: genesis.common });
    const ours = (await createGenesis(genesis.genesis, genesis.common)).block.header;
    const oursJson = ours.toJSON() as Record<string, string | undefined>;
    const theirsJson = theirs.toJSON() as Record<string, string | undefined>;
    const differing = Object.keys({ ...oursJson, ...theirsJson }).filter((k) => oursJson[k] !== theirsJson[k]);
    expect(differing).toEqual(['transactionsTrie']);
    expect(oursJson.transactionsTrie).toBe(bytesToHex(KECCAK256_RLP));
    expect(theirsJson.transactionsTrie).toBe(bytesToHex(KECCAK256_NULL));
    expect(bytesToHex(ours.hash())).not.toBe(block0.hash);
    // blockFromRpc takes an empty body with that root: block 0 rebuilds to Hardhat's hash.
    expect(bytesToHex(blockFromRpc(block0, [], genesis.common).hash())).toBe(block0.hash);
  });

  it("rebuilds the block that automines an EIP-1559 transfer from account 0 to the node's hash", async () => {
    const account = privateKeyToAccount(ACCOUNT0_KEY);
    expect(account.address.toLowerCase()).toBe(((await node.call('eth_accounts')) as string[])[0]);
    const latest = (await node.call('eth_getBlockByNumber', ['latest', false])) as { baseFeePerGas: Hex };
    const raw = await account.signTransaction({
      type: 'eip1559',
      chainId: 31337,
      nonce: Number(await node.call('eth_getTransactionCount', [account.address, 'pending'])),
      to: mnemonicToAccount(MNEMONIC, { addressIndex: 1 }).address,
      value: 10n ** 18n,
      gas: 21_000n,
      maxFeePerGas: 2n * BigInt(latest.baseFeePerGas) + 10n ** 9n,
      maxPriorityFeePerGas: 10n ** 9n,
    });
    const hash = await node.call('eth_sendRawTransaction', [raw]);
    // Automine: the transaction is in a block when eth_sendRawTransaction answers.
    const receipt = (await node.call('eth_getTransactionReceipt', [hash])) as { blockNumber: Hex; status: Hex; type: Hex };
    expect(receipt).toMatchObject({ status: '0x1', type: '0x2', blockNumber: '0x1' });
    mined = (await node.call('eth_getBlockByNumber', [receipt.blockNumber, true])) as Json;
    const block = blockFromRpc(mined, [], genesis.common);
    expect(bytesToHex(block.hash())).toBe(mined.hash);
    expect(block.transactions.map((tx) => [tx.type, bytesToHex(tx.hash())])).toEqual([[2, hash]]);
  });

  it("executing that block gives Hardhat's receipts, and its state root only without the EIP-4788 and EIP-2935 writes", async () => {
    expect(mined, 'needs the block of the previous test').toBeDefined();
    const block = blockFromRpc(mined, [], genesis.common);
    const opts = { block, skipBlockValidation: true, skipHeaderValidation: true, skipHardForkValidation: true };
    const withWrites = await createVM({ common: genesis.common.copy() });
    await withWrites.stateManager.generateCanonicalGenesis!(parseGethGenesisState(genesis.genesis as never));
    const result = await runBlock(withWrites, { ...opts, generate: true });
    expect(bytesToHex(result.receiptsRoot)).toBe(mined.receiptsRoot);
    expect(result.gasUsed).toBe(BigInt(mined.gasUsed as string));
    expect(bytesToHex(result.stateRoot)).not.toBe(mined.stateRoot);
    // What the writes left: storage at both addresses, where Hardhat has none.
    for (const address of [BEACON_ROOTS, HISTORY]) {
      expect(Object.keys(await withWrites.stateManager.dumpStorage!(createAddressFromString(address))).length, address).toBeGreaterThan(0);
      const proof = (await node.call('eth_getProof', [address, [], mined.number])) as { storageHash: string };
      expect(proof.storageHash).toBe(bytesToHex(KECCAK256_RLP));
    }
    // Without them runBlock itself checks every root against the header (it throws on a mismatch).
    const without = await createVM({ common: withoutSystemWrites(genesis.common) });
    await without.stateManager.generateCanonicalGenesis!(parseGethGenesisState(genesis.genesis as never));
    const verified = await runBlock(without, { ...opts, generate: false });
    expect(bytesToHex(verified.stateRoot)).toBe(mined.stateRoot);
    // Blocks keep their own Common, in which both EIPs stay active (their headers carry the beacon root).
    expect(block.common.isActivatedEIP(4788) && block.common.isActivatedEIP(2935)).toBe(true);
  });

  it('the importer: strict checks refuse that block; lenient ones execute it without the writes and report systemCalls', async () => {
    chain = await openChain(join(tmp.dir, 'data'), testConfig().caches);
    const block = blockFromRpc(mined, [], chain.common);
    const strict = new BlockImporter(chain, { ...testConfig().import, headerChecks: 'strict' });
    // (A transfer sent within the genesis' second repeats its timestamp, which strict checks refuse
    // first; else its execution: Hardhat's Prague chain has no EIP-7002 contract, which makes the
    // block invalid under the specification.)
    const block0 = (await node.call('eth_getBlockByNumber', ['0x0', false])) as { timestamp: Hex };
    const refused =
      BigInt(mined.timestamp as Hex) > BigInt(block0.timestamp)
        ? 'execution failed: system contract empty: no code at 0x00000961ef480eb55e80d19ad83579a64c007002'
        : 'timestamp ';
    await expect(strict.execute(block)).rejects.toThrow(`block 1 (${mined.hash}): ${refused}`);
    const lenient = new BlockImporter(chain, testConfig().import);
    const executed = await lenient.execute(block);
    expect(executed.deviations.map((d) => d.rule)).toContain('systemCalls');
    expect(executed.deviations.find((d) => d.rule === 'systemCalls')?.detail).toMatch(
      /^verifies without the EIP-4788 and EIP-2935 system writes; with them stateRoot 0x[0-9a-f]{64} != header 0x[0-9a-f]{64}$/,
    );
  });

  it('hardhat_mine 0x20 mines the first two blocks and the last, and reserves the 29 between, each rebuilt to its hash', async () => {
    const from = BigInt(((await node.call('eth_getBlockByNumber', ['latest', false])) as { number: Hex }).number) + 1n;
    expect(await node.call('hardhat_mine', ['0x20'])).toBe(true);
    const blocks: Json[] = [];
    for (let n = from; n < from + 32n; n++) blocks.push((await node.call('eth_getBlockByNumber', [`0x${n.toString(16)}`, true])) as Json);
    const reserved = blocks.filter((b) => /^0x0{64}$/.test(b.parentHash as string));
    expect(reserved.map((b) => BigInt(b.number as string))).toEqual(Array.from({ length: 29 }, (_, i) => from + 2n + BigInt(i)));
    const zero32 = `0x${'00'.repeat(32)}`;
    for (const b of reserved) {
      expect(b).toMatchObject({
        transactionsRoot: bytesToHex(KECCAK256_NULL),
        receiptsRoot: bytesToHex(KECCAK256_RLP),
        mixHash: zero32,
        parentBeaconBlockRoot: zero32,
        miner: `0x${'00'.repeat(20)}`,
        gasLimit: '0xf4240',
        baseFeePerGas: blocks[1].baseFeePerGas,
        transactions: [],
      });
      expect(bytesToHex(blockFromRpc(b, [], genesis.common).hash())).toBe(b.hash);
    }
    // The block after the range names the last reserved one.
    expect(blocks[31].parentHash).toBe(blocks[30].hash);
    expect(blocks[31].transactionsRoot).toBe(bytesToHex(KECCAK256_RLP));
  });
});
