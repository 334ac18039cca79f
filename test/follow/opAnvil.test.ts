import { gunzipSync } from 'node:zlib';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, bytesToHex, hexToBytes, KECCAK256_RLP, setLengthLeft } from '@ethereumjs/util';
import { type Hex, parseGwei } from 'viem';
import { privateKeyToAccount, signAuthorization } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AnvilProcess, startAnvil } from '../../scripts/anvil/anvilProcess.js';
import { DEPOSIT_TX_TYPE, encodeDepositTx } from '../../src/chain/op/depositTx.js';
import { opBlock } from '../../src/chain/op/opBlock.js';
import { opCommon, rollupFromConfig } from '../../src/chain/op/rollup.js';
import { createBlockVM } from '../../src/execution/blockRun.js';
import { L1_BLOCK_ADDRESS } from '../../src/execution/op/l1Cost.js';
import { BASE_FEE_VAULT, executeOpBlock, L1_FEE_VAULT, type OpBlockResult } from '../../src/execution/op/opBlockRun.js';
import { OPERATOR_FEE_VAULT } from '../../src/execution/op/operatorFee.js';
import { opPrecompiles } from '../../src/execution/op/precompiles.js';
import { opBlockFromRpc } from '../../src/follow/opBlockFromRpc.js';
import { rawResult } from '../helpers/anvilPeer.js';
import { describeWithFoundry } from '../helpers/foundry.js';

/**
 * OP-stack blocks of four upgrades as a live op-revm makes them: `anvil --network optimism
 * --hardfork <upgrade>` (anvil 1.7.1; Fjord, Granite, Holocene and Isthmus) mines blocks
 * of ordinary transactions, deposits (unsigned 0x7E envelopes through eth_sendRawTransaction) and,
 * at Isthmus, an EIP-7702 delegation, with an L1 data fee (and at Isthmus an operator fee) set in
 * the L1Block contract's storage, and tracenode's OP executor (`src/execution/op/opBlockRun.ts`) runs each
 * block on the state anvil held before it (anvil_dumpState, built into a trie whose root must be
 * the parent's state root): state root, receipts root, transactions root, bloom, gas used and
 * withdrawals root must be anvil's, and so the fee vaults' balances.
 *
 * anvil's OP mode as it is (learnt from it, as the issue asks): it ships no predeploys — the
 * L1Block contract is only storage here, which is all op-revm and tracenode read of it — nor the
 * EIP-4788 contract, while the EIP-2935 history contract is in its genesis; eth_sendTransaction
 * ignores `sourceHash` and `mint` (the deposits go raw); eth_getRawTransactionByHash of a deposit
 * makes it panic and exit (tracenode reads the blocks' JSON, `follow/opBlockFromRpc.ts`, and builds
 * a deposit's bytes from its fields); its genesis header gives the empty trie's state root whatever its
 * accounts; its withdrawals root is the empty trie's, as the message passer has no account; it
 * charges an operator fee before Isthmus too when L1Block's slot 8 holds one (op-geth gates it by
 * Isthmus; the slot is set here from Isthmus only, as on a real chain), and before Isthmus it
 * leaves an empty account at the operator fee vault (op-revm credits it 0 and anvil's state keeps
 * the touched empty account, which EIP-161 removes); and its pre-Isthmus headers carry a state root
 * that is not the root of its own state (after one transfer at `--hardfork holocene`, neither of
 * its dumped state nor of that state without empty accounts), so before Isthmus the state root is
 * compared with the root of the state anvil holds after the block (anvil_dumpState), every other
 * root and total with its header's; from Isthmus both. The executor runs with `quirks: 'anvil'` for
 * the last one and for anvil's `depositNonce` (the nonce after the deposit: op-geth's, and the
 * real blocks', is the nonce before).
 */

/** The keys of anvil's first four development accounts (its default mnemonic): the first sends the EIP-7702 transaction, the fourth delegates. */
const KEYS: Hex[] = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
];

/**
 * The upgrades anvil runs (`--hardfork`) and tracenode's executor takes, each with every earlier one
 * from genesis. Not Ecotone: anvil 1.7.1's `--hardfork ecotone` charges Fjord's L1 data fee (the
 * state after the same block is the one `fjord` and `holocene` leave), so Ecotone's rule is held by
 * op-geth's and maili's vectors (`src/execution/op/l1Cost.test.ts`) instead.
 */
const UPGRADES = ['fjord', 'granite', 'holocene', 'isthmus'] as const;
const EARLIER = ['regolith', 'canyon', 'delta', 'ecotone'];
const upgradeTimes = (upgrade: (typeof UPGRADES)[number]) =>
  Object.fromEntries([...EARLIER, ...UPGRADES.slice(0, UPGRADES.indexOf(upgrade) + 1)].map((u) => [`${u}_time`, 0]));
/** A contract whose code stores its first calldata word in slot 0 and logs it under topic 0x2a. */
const RUNTIME = '600035600055600035600052602a60206000a100';
const INIT = `0x6014600c60003960146000f3${RUNTIME}`;
const word = (value: bigint) => `0x${value.toString(16).padStart(64, '0')}`;

/**
 * A gas limit the call's SSTORE cannot be paid from: Prague's calldata floor for a word of 31 zero
 * bytes and one other (21,000 + 10 × (31 + 4 × 1) = 21,350) and 50 more, of which the run gets
 * 21,400 − 21,140 (its intrinsic gas) = 260.
 */
const OUT_OF_GAS = 21_400;

/** The L1Block words the fees read: L1 base fee (slot 1), the two Ecotone scalars and a sequence number (3), the blob base fee (7), the operator fee scalar and constant (8). */
const L1_BLOCK_STORAGE: Array<[bigint, bigint]> = [
  [1n, 7_000_000_000n],
  [3n, (1368n << 96n) | (810_949n << 64n) | 5n],
  [7n, 3n],
  [8n, (2_500_000n << 64n) | 1_000n],
];

interface DumpedAccount {
  nonce: number | string;
  balance: string;
  code: string;
  storage: Record<string, string>;
}

interface RpcBlock {
  number: string;
  hash: string;
  parentHash: string;
  stateRoot: string;
  receiptsRoot: string;
  transactionsRoot: string;
  logsBloom: string;
  gasUsed: string;
  withdrawalsRoot: string;
  transactions: RpcTransaction[];
  [field: string]: unknown;
}

interface RpcTransaction {
  hash: `0x${string}`;
  type: string;
  from: `0x${string}`;
  to?: `0x${string}` | null;
  value: string;
  gas: string;
  input: `0x${string}`;
  sourceHash?: `0x${string}`;
  mint?: string;
  isSystemTx?: boolean;
}

const describeOp = describeWithFoundry(['anvil'], 'OP blocks of anvil --network optimism');
for (const upgrade of UPGRADES) {
  describeOp(`${upgrade} blocks of a live op-revm (anvil --network optimism --hardfork ${upgrade}), run by tracenode`, () => {
    let anvil: AnvilProcess;
    let accounts: string[];
    const rollup = rollupFromConfig({ l2_chain_id: 31337, ...upgradeTimes(upgrade) });
    const common = opCommon(rollup, upgrade);
    const isthmus = upgrade === 'isthmus';
    const hashes = new Map<bigint, Uint8Array>();
    /** The state root the last block's run gave (and anvil's state then had). */
    let lastRoot: string | undefined;
    const call = (method: string, params: unknown[] = []) => rawResult(anvil.url, method, params);

    beforeAll(async () => {
      anvil = await startAnvil(['--network', 'optimism', '--hardfork', upgrade, '--no-mining']);
      accounts = (await call('eth_accounts')) as string[];
      // The operator fee's slot is set from Isthmus only, as on a real chain (L1Block has no such
      // field before): anvil 1.7.1 charges an operator fee before Isthmus too when the slot holds
      // one, which op-geth does not (its operator fee is gated by Isthmus).
      for (const [slot, value] of L1_BLOCK_STORAGE) {
        if (slot !== 8n || isthmus) await call('anvil_setStorageAt', [L1_BLOCK_ADDRESS, word(slot), word(value)]);
      }
      // anvil's genesis header says the empty trie's root whatever its accounts; an empty block
      // mined on the state set above carries that state's real root, which the first block's run
      // starts from.
      await call('evm_mine');
      for (const n of [0n, 1n]) {
        const block = (await call('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])) as RpcBlock;
        hashes.set(n, hexToBytes(block.hash as `0x${string}`));
      }
    }, 60_000);
    afterAll(async () => {
      await anvil?.stop();
    });

    /** The state anvil holds now, as a trie. */
    async function dumpedState(): Promise<MerkleStateManager> {
      const dump = JSON.parse(gunzipSync(hexToBytes((await call('anvil_dumpState')) as `0x${string}`)).toString('utf8')) as {
        accounts: Record<string, DumpedAccount>;
      };
      const sm = new MerkleStateManager({ common });
      for (const [address, a] of Object.entries(dump.accounts)) {
        const at = new Address(hexToBytes(address as `0x${string}`));
        await sm.putAccount(at, new Account(BigInt(a.nonce), BigInt(a.balance)));
        if (a.code !== '0x') await sm.putCode(at, hexToBytes(a.code as `0x${string}`));
        for (const [slot, value] of Object.entries(a.storage)) {
          await sm.putStorage(at, setLengthLeft(hexToBytes(slot as `0x${string}`), 32), hexToBytes(value as `0x${string}`));
        }
      }
      return sm;
    }

    /** Sends `send`'s transactions, mines them into one block and runs that block on the state anvil held before it. */
    async function mineAndRun(send: () => Promise<void>): Promise<{ ours: OpBlockResult; theirs: RpcBlock; sm: MerkleStateManager }> {
      const sm = await dumpedState();
      const parent = (await call('eth_getBlockByNumber', ['latest', false])) as RpcBlock;
      // The state anvil holds is the one its last block left: the first block's parent (an empty
      // block) carries its root; later, anvil's pre-Isthmus headers do not (see above), and the
      // root the previous run gave stands for it.
      expect(bytesToHex(await sm.getStateRoot()), 'the dumped state is the parent block’s').toBe(lastRoot ?? parent.stateRoot);
      await send();
      await call('evm_mine');
      const theirs = (await call('eth_getBlockByNumber', ['latest', true])) as RpcBlock;
      hashes.set(BigInt(theirs.number), hexToBytes(theirs.hash as `0x${string}`));
      // The block as tracenode reads an OP node's JSON: its header hashes to anvil's block hash,
      // each transaction to anvil's hash for it (deposits built from their fields), their root to the header's.
      const { header, transactions } = await opBlockFromRpc(theirs, rollup);
      const block = opBlock(header, transactions);
      const chain: EVMMockBlockchainInterface = {
        async getBlock(n: number | bigint) {
          const hash = hashes.get(BigInt(n))!;
          return { hash: () => hash };
        },
        async putBlock() {},
        shallowCopy: () => chain,
      };
      const vm = await createBlockVM({
        common,
        stateManager: sm,
        blockchain: chain,
        evmOpts: { customPrecompiles: opPrecompiles(rollup, block.header.timestamp, common) },
      });
      const ours = await executeOpBlock(vm, { block, transactions, rollup, quirks: 'anvil' });
      return { ours, theirs, sm };
    }

    /** Every root and total of the block, ours beside anvil's; the fee vaults' balances too. */
    async function expectSame({ ours, theirs, sm }: { ours: OpBlockResult; theirs: RpcBlock; sm: MerkleStateManager }): Promise<void> {
      // The state anvil holds after the block, and (from Isthmus) the root its header carries.
      const held = bytesToHex(await (await dumpedState()).getStateRoot());
      expect(bytesToHex(ours.stateRoot), 'the state root of the state anvil holds after the block').toBe(held);
      lastRoot = held;
      expect({
        stateRoot: isthmus ? bytesToHex(ours.stateRoot) : theirs.stateRoot,
        receiptsRoot: bytesToHex(ours.receiptsRoot),
        transactionsRoot: bytesToHex(ours.transactionsRoot),
        logsBloom: bytesToHex(ours.logsBloom),
        gasUsed: `0x${ours.gasUsed.toString(16)}`,
        // Before Isthmus an OP header's withdrawals root is the empty trie's (no withdrawals, from Canyon).
        withdrawalsRoot: bytesToHex(ours.withdrawalsRoot ?? KECCAK256_RLP),
      }).toEqual({
        stateRoot: theirs.stateRoot,
        receiptsRoot: theirs.receiptsRoot,
        transactionsRoot: theirs.transactionsRoot,
        logsBloom: theirs.logsBloom,
        gasUsed: theirs.gasUsed,
        withdrawalsRoot: theirs.withdrawalsRoot,
      });
      for (const vault of [BASE_FEE_VAULT, L1_FEE_VAULT, OPERATOR_FEE_VAULT]) {
        const balance = (await sm.getAccount(new Address(vault)))?.balance ?? 0n;
        expect(`0x${balance.toString(16)}`).toBe(await call('eth_getBalance', [bytesToHex(vault), theirs.number]));
      }
    }

    const deposit = (from: string, to: string | undefined, fields: { mint: bigint; value: bigint; gas: bigint; data?: string; source: number }) =>
      bytesToHex(
        encodeDepositTx({
          sourceHash: setLengthLeft(Uint8Array.of(fields.source), 32),
          from: hexToBytes(from as `0x${string}`),
          to: to === undefined ? undefined : hexToBytes(to as `0x${string}`),
          mint: fields.mint,
          value: fields.value,
          gasLimit: fields.gas,
          isSystemTx: false,
          data: hexToBytes((fields.data ?? '0x') as `0x${string}`),
        }),
      );

    let contract: string;

    it('a transfer, a contract created and a deposit with mint: every root, and the fee vaults, are anvil’s', async () => {
      const run = await mineAndRun(async () => {
        await call('eth_sendTransaction', [{ from: accounts[0], to: accounts[1], value: '0x1000' }]);
        await call('eth_sendTransaction', [{ from: accounts[1], data: INIT, gas: '0x30000' }]);
        await call('eth_sendRawTransaction', [deposit(`0x${'ab'.repeat(20)}`, accounts[3], { mint: 10n ** 18n, value: 10n ** 17n, gas: 100_000n, source: 1 })]);
      });
      const receipts = (await Promise.all(run.theirs.transactions.map((tx) => call('eth_getTransactionReceipt', [tx.hash])))) as Array<{
        contractAddress: string | null;
      }>;
      contract = receipts[1].contractAddress!;
      expect(run.ours.receipts.map((r) => r.type)).toEqual([2, 2, DEPOSIT_TX_TYPE]);
      // The ordinary transactions paid an L1 data fee and an operator fee, which the vaults hold.
      expect(run.ours.receipts[0].l1?.fee).toBeGreaterThan(0n);
      expect(run.ours.receipts[0].operatorFee).toEqual(isthmus ? { scalar: 2_500_000n, constant: 1_000n } : undefined);
      await expectSame(run);
    }, 60_000);

    it('a call that stores and logs, one out of gas, a deposit that creates a contract and one that runs out of gas', async () => {
      const run = await mineAndRun(async () => {
        await call('eth_sendTransaction', [{ from: accounts[2], to: contract, data: word(0x1234n), gas: '0x20000' }]);
        await call('eth_sendTransaction', [{ from: accounts[2], to: contract, data: word(0x99n), gas: `0x${OUT_OF_GAS.toString(16)}` }]);
        await call('eth_sendRawTransaction', [deposit(accounts[4], undefined, { mint: 0n, value: 0n, gas: 200_000n, data: INIT, source: 2 })]);
        // anvil's pool refuses a deposit whose value its sender cannot pay even with its mint, so a failed one is out of gas.
        await call('eth_sendRawTransaction', [
          deposit(`0x${'cd'.repeat(20)}`, contract, { mint: 5n, value: 0n, gas: BigInt(OUT_OF_GAS), data: word(0x77n), source: 3 }),
        ]);
      });
      expect(run.ours.receipts.map((r) => [r.type, r.status])).toEqual([
        [2, 1],
        [2, 0],
        [DEPOSIT_TX_TYPE, 1],
        [DEPOSIT_TX_TYPE, 0],
      ]);
      expect(run.ours.receipts[0].logs).toHaveLength(1);
      await expectSame(run);
    }, 60_000);

    it('error: a block whose JSON lies is refused, naming what does not match', async () => {
      const json = (await call('eth_getBlockByNumber', ['0x2', true])) as RpcBlock;
      const copy = () => JSON.parse(JSON.stringify(json)) as RpcBlock;
      const minted = copy();
      const deposit = minted.transactions.find((tx) => Number(tx.type) === DEPOSIT_TX_TYPE)!;
      deposit.mint = '0x1';
      await expect(opBlockFromRpc(minted, rollup)).rejects.toThrow(/rebuilt transaction 2 has hash 0x[0-9a-f]{64}, the upstream's is/);
      const dropped = copy();
      dropped.transactions.pop();
      await expect(opBlockFromRpc(dropped, rollup)).rejects.toThrow(/transactionsRoot of its 2 transaction\(s\) is 0x[0-9a-f]{64}, the header's is/);
      const moved = copy();
      moved.gasUsed = '0x1';
      await expect(opBlockFromRpc(moved, rollup)).rejects.toThrow(/rebuilt header hash 0x[0-9a-f]{64} is not the upstream's/);
      const broken = copy();
      (broken.transactions[2] as unknown as Record<string, unknown>).isSystemTx = 'no';
      await expect(opBlockFromRpc(broken, rollup)).rejects.toThrow(/deposit 2: isSystemTx is not a boolean/);
    });

    // Prague's set-code transactions: from Isthmus.
    if (isthmus) {
      it('an EIP-7702 delegation to the contract and calls of the delegated account, one by a deposit', async () => {
        const authority = privateKeyToAccount(KEYS[3]);
        const sender = privateKeyToAccount(KEYS[0]);
        const run = await mineAndRun(async () => {
          const nonce = Number(BigInt((await call('eth_getTransactionCount', [sender.address, 'pending'])) as string));
          const authorization = await signAuthorization({ privateKey: KEYS[3], chainId: 31337, address: contract as Hex, nonce: 0 });
          const raw = await sender.signTransaction({
            type: 'eip7702',
            chainId: 31337,
            nonce,
            maxFeePerGas: parseGwei('100'),
            maxPriorityFeePerGas: parseGwei('1'),
            gas: 200_000n,
            to: authority.address,
            data: word(0xbeefn) as Hex,
            authorizationList: [authorization],
          });
          await call('eth_sendRawTransaction', [raw]);
          await call('eth_sendRawTransaction', [
            deposit(`0x${'ef'.repeat(20)}`, authority.address, { mint: 0n, value: 0n, gas: 100_000n, data: word(0x55n), source: 4 }),
          ]);
        });
        expect(run.ours.receipts.map((r) => [r.type, r.status, r.logs.length])).toEqual([
          [4, 1, 1],
          [DEPOSIT_TX_TYPE, 1, 1],
        ]);
        // The delegated account's own storage holds what the second call stored.
        expect(await call('eth_getStorageAt', [authority.address, '0x0', run.theirs.number])).toBe(word(0x55n));
        await expectSame(run);
      }, 60_000);
    }
  });
}
