import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { createChainCommon } from '../../src/chain/genesis.js';
import { knownOpChain } from '../../src/chain/op/chains.js';
import { DEPOSIT_TX_TYPE } from '../../src/chain/op/depositTx.js';
import { DepositTransaction, opBlock, opBlockFromBytes } from '../../src/chain/op/opBlock.js';
import { opRulesGenesis, upgradeAt } from '../../src/chain/op/rollup.js';
import { bigIntToQuantity } from '../../src/codec/hex.js';
import { keccak256 } from '../../src/codec/keccak.js';
import { l1FieldsFromInfo } from '../../src/execution/op/l1InfoFees.js';
import { anchorReceipts } from '../../src/follow/anchorReceipts.js';
import type { Upstream } from '../../src/follow/upstream.js';
import { UpstreamBlocks } from '../../src/follow/upstreamBlocks.js';
import { executeOpFixture, loadOpBlocks, type OpBlock, receiptsAsNodeJson } from '../helpers/opBlocks.js';

/**
 * Real blocks of three OP-stack chains (fixtures/op-stack/, kona's executor fixtures, all
 * Holocene): OP Mainnet, OP Sepolia and Unichain. Each is run by tracenode's OP executor
 * (`src/execution/op/opBlockRun.ts`) on the importer's partial trie database filled from the
 * block's preimages through the follower's witness intake, as an archive from block N would run
 * it. Kona's own check: the header built from the parent and the payload with the roots execution
 * gives hashes to the block's real hash (state root, receipts root, logs bloom, gas used,
 * transactions root, base fee and extra data all exact). For the three blocks whose header is
 * another fixture's parent, each root is compared on its own as well.
 */

const CHAIN_IDS: Record<string, bigint> = { 'op-mainnet': 10n, 'op-sepolia': 11155420n, unichain: 130n };
const blocks = loadOpBlocks().sort((a, b) => a.network.localeCompare(b.network) || Number(a.number - b.number));
const label = (b: OpBlock) => `${b.network} ${b.number}`;

describe('real OP-stack blocks: the built header hashes to the real block hash', () => {
  it('the fixtures: sixteen Holocene blocks of OP Mainnet, OP Sepolia and Unichain; consecutive ones chain by hash', () => {
    expect(blocks.map(label)).toEqual([
      'op-mainnet 132795025',
      'op-mainnet 132796000',
      'op-mainnet 132796100',
      'op-mainnet 132797000',
      'op-mainnet 132798000',
      'op-mainnet 132799000',
      'op-sepolia 26207960',
      'op-sepolia 26207961',
      'op-sepolia 26207962',
      'op-sepolia 26207963',
      'op-sepolia 26208384',
      'op-sepolia 26208858',
      'op-sepolia 26211680',
      'unichain 10211000',
      'unichain 10215000',
      'unichain 10311000',
    ]);
    for (const b of blocks) {
      expect(b.rollup.chainId).toBe(CHAIN_IDS[b.network]);
      expect(b.parent.number).toBe(b.number - 1n);
      expect(upgradeAt(b.rollup, BigInt(b.fixture.executing_payload.timestamp))).toBe('holocene');
      const next = blocks.find((n) => n.network === b.network && n.number === b.number + 1n);
      if (next) expect(bytesToHex(next.parent.hash())).toBe(b.fixture.expected_block_hash);
    }
  });

  for (const b of blocks) {
    it(label(b), async () => {
      const { result, header } = await executeOpFixture(b);
      const next = blocks.find((n) => n.network === b.network && n.number === b.number + 1n);
      if (next) {
        // The real header of this block: every root on its own.
        expect({
          stateRoot: bytesToHex(result.stateRoot),
          receiptsRoot: bytesToHex(result.receiptsRoot),
          transactionsRoot: bytesToHex(result.transactionsRoot),
          logsBloom: bytesToHex(result.logsBloom),
          gasUsed: result.gasUsed,
        }).toEqual({
          stateRoot: bytesToHex(next.parent.stateRoot),
          receiptsRoot: bytesToHex(next.parent.receiptTrie),
          transactionsRoot: bytesToHex(next.parent.transactionsTrie),
          logsBloom: bytesToHex(next.parent.logsBloom),
          gasUsed: next.parent.gasUsed,
        });
      }
      expect(bytesToHex(header.hash())).toBe(b.fixture.expected_block_hash);
      // The block as tracenode holds it (src/chain/op/opBlock.ts): deposits beside signed
      // transactions, the same hash and transactions root, and its encoding read back whole.
      const raws = b.fixture.executing_payload.transactions.map((t) => hexToBytes(t as `0x${string}`));
      const block = opBlock(header, raws, []);
      expect(bytesToHex(block.hash())).toBe(b.fixture.expected_block_hash);
      expect(bytesToHex(await block.genTxTrie())).toBe(bytesToHex(header.transactionsTrie));
      const read = opBlockFromBytes(block.serialize(), header.common, false);
      expect(bytesToHex(read.hash())).toBe(b.fixture.expected_block_hash);
      expect(read.transactions.map((tx) => bytesToHex(tx.hash()))).toEqual(raws.map((raw) => bytesToHex(keccak256(raw))));
      expect(read.transactions[0]).toBeInstanceOf(DepositTransaction);
      // The same bytes as op-geth's debug_getRawBlock serves them, read as the follower reads a
      // known chain's blocks: the chain's Common (its forks by time, from the registry) sets each
      // block's fork, Holocene's Cancun.
      const rules = knownOpChain(CHAIN_IDS[b.network])!.rollup;
      const chainCommon = await createChainCommon(opRulesGenesis(rules));
      const upstream = { batch: async (calls: unknown[]) => calls.map(() => bytesToHex(block.serialize())), shownUrl: 'test' } as unknown as Upstream;
      const [fetched] = await new UpstreamBlocks(upstream, chainCommon, undefined, rules).fetch(b.number, 1);
      expect(bytesToHex(fetched.hash())).toBe(b.fixture.expected_block_hash);
      expect([fetched.header.common.hardfork(), fetched.transactions[0] instanceof DepositTransaction]).toEqual(['cancun', true]);
      // Every block opens with the L1 attributes deposit: a receipt with depositNonce and version 1.
      const first = result.receipts[0];
      expect([first.type, first.status, first.depositReceiptVersion, first.l1]).toEqual([DEPOSIT_TX_TYPE, 1, 1n, undefined]);
      expect(first.depositNonce).toBeGreaterThan(0n);
      // Every other transaction paid an L1 data fee by Fjord's rule.
      for (const r of result.receipts.filter((x) => x.type !== DEPOSIT_TX_TYPE)) expect(r.l1?.fee).toBeGreaterThan(0n);
      // The receipts' L1 fields as op-geth derives them from the block's L1-info deposit (what an
      // archive from block N gives its first block) are the ones execution charged from L1Block.
      const fromInfo = l1FieldsFromInfo(b.rollup, block)!;
      expect(fromInfo.filter((f) => f !== undefined).length).toBeGreaterThan(0);
      for (const [i, r] of result.receipts.entries()) {
        const l1 = fromInfo[i]?.l1Fee;
        const executed = r.l1 === undefined ? undefined : { rules: r.l1.rules, fee: r.l1.fee, gasUsed: r.l1.gasUsed, ...r.l1.params };
        expect(l1, `${label(b)} tx ${i}`).toEqual(executed);
      }
      if (next) {
        // As the first block of an archive from block N: the block with its real header, its
        // receipts as a node's JSON gives them, checked against the real receiptsRoot (deposits'
        // nonce and version in it), with the L1 fields derived from its L1-info deposit.
        const real = opBlock(next.parent, raws, []);
        const json = receiptsAsNodeJson(result.receipts);
        const node = { call: async () => json } as unknown as Upstream;
        const stored = await anchorReceipts(node, real, b.rollup);
        expect(stored.map((r) => r.l1Fee)).toEqual(fromInfo.map((f) => f?.l1Fee));
        expect(stored[0].depositNonce).toBe(result.receipts[0].depositNonce);
        const lying = json.map((r, i) => (i === 0 ? { ...r, depositNonce: bigIntToQuantity(BigInt(r.depositNonce as string) + 1n) } : r));
        await expect(anchorReceipts({ call: async () => lying } as unknown as Upstream, real, b.rollup)).rejects.toThrow(
          /give receiptsRoot 0x[0-9a-f]{64}, its header names/,
        );
      }
    }, 120_000);
  }
});
