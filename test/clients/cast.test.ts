/**
 * Foundry's `cast` binary (from @foundry-rs/cast-linux-amd64), spawned as a user runs it with
 * `--rpc-url http://127.0.0.1:PORT/v3/KEY`, against a real tracenode serving the demo chain. Every
 * assertion reads a value out of cast's output and compares it with the demo generator's record
 * (fixtures/demo/README.md).
 */
import { execFile, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rawCall } from '../helpers/anvilPeer.js';
import { type EthTestServer, startEthServer } from '../helpers/ethServer.js';
import { ANVIL_BIN, CAST_BIN, describeWithFoundry } from '../helpers/foundry.js';
import { verifyProof } from '../helpers/proofVerifier.js';
import { until } from '../helpers/until.js';
import {
  ALICE,
  BLOB_PROBE,
  BLOB_VERSIONED_HASH,
  BLOCK,
  BOB,
  CHAIN_ID,
  COUNTER_HISTORY,
  DAVE,
  DEMO_DIR,
  FEE_RECIPIENT_A,
  GRID_ALICE_7,
  GRID_ALICE_7_HISTORY,
  HEAD,
  httpUrl,
  MINER,
  PROBE,
  RARE_1,
  REASON,
  REASON_DATA,
  SLOT0,
  STATEBOX,
  THROWER,
  TOKEN,
  TRANSFER_TOPIC,
  TRANSFERS_8_TO_10,
  TX,
  UNCLE_MINER_1,
  UNCLE_MINER_3,
  UNCLES_11,
  unauthorizedData,
  valueAt,
  word,
} from './demo.js';

const describeWithCast = describeWithFoundry(['cast'], 'the cast client tests');

let server: EthTestServer;
beforeAll(async () => {
  server = await startEthServer(DEMO_DIR);
});
afterAll(async () => {
  await server?.close();
});

interface CastResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `cast <args> --rpc-url <server>`; resolves with the exit code and output (never rejects on a non-zero exit). */
function castRun(...args: string[]): Promise<CastResult> {
  return new Promise((done, fail) => {
    execFile(
      CAST_BIN,
      [...args, '--rpc-url', httpUrl(server)],
      // a neutral cwd so that no foundry.toml is picked up; no colours in the output
      { cwd: tmpdir(), env: { ...process.env, NO_COLOR: '1', FOUNDRY_DISABLE_NIGHTLY_WARNING: '1' }, timeout: 20_000 },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') return fail(err);
        done({ code: err ? (err.code as number) : 0, stdout, stderr });
      },
    );
  });
}

/** Runs cast and expects success; resolves with its trimmed stdout. */
async function cast(...args: string[]): Promise<string> {
  const r = await castRun(...args);
  if (r.code !== 0) throw new Error(`cast ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout.trim();
}

const lines = (s: string) => s.split('\n').map((l) => l.trim());
const hex = (n: number | bigint) => `0x${n.toString(16)}`;

describeWithCast('cast', () => {
  it('cast chain-id, cast block-number', async () => {
    expect(await cast('chain-id')).toBe(String(CHAIN_ID));
    expect(await cast('block-number')).toBe(String(HEAD));
  });

  it('cast block: by number (text and --json), by hash (--field), latest', async () => {
    const text = await cast('block', '20');
    expect(text).toMatch(new RegExp(`^hash\\s+${BLOCK[20]}$`, 'm'));
    expect(text).toMatch(new RegExp(`^parentHash\\s+${BLOCK[19]}$`, 'm'));
    expect(text).toMatch(/^number\s+20$/m);
    expect(text).toMatch(/^baseFeePerGas\s+213316962$/m);
    expect(text).toMatch(/^gasUsed\s+49629$/m);
    expect(text).toMatch(new RegExp(`^miner\\s+${FEE_RECIPIENT_A}$`, 'im'));
    expect(text).toContain(TX.firstPos);

    const json = JSON.parse(await cast('block', '20', '--json')) as Record<string, unknown>;
    expect([json.hash, json.number, json.miner, json.baseFeePerGas, json.difficulty]).toEqual([BLOCK[20], '0x14', FEE_RECIPIENT_A, hex(213_316_962), '0x0']);
    expect((json.transactions as string[])[0]).toBe(TX.firstPos);

    expect(await cast('block', BLOCK[11], '--field', 'number')).toBe('11');
    const b11 = JSON.parse(await cast('block', '11', '--json')) as { hash: string; uncles: string[] };
    expect([b11.hash, b11.uncles]).toEqual([BLOCK[11], [...UNCLES_11]]);
    expect(await cast('block', 'latest', '--field', 'hash')).toBe(BLOCK[64]);
    expect(await cast('block', 'earliest', '--field', 'hash')).toBe(BLOCK[0]);
  });

  it('cast storage: StateBox counter and grid[alice][7] at historic blocks', async () => {
    for (const b of [0, 5, 15, 19, 20, 64]) {
      expect(await cast('storage', STATEBOX, '0', '--block', String(b)), `counter @${b}`).toBe(word(valueAt(COUNTER_HISTORY, b)));
    }
    expect(await cast('storage', STATEBOX, GRID_ALICE_7, '--block', '41')).toBe(word(44n));
    expect(await cast('storage', STATEBOX, GRID_ALICE_7, '--block', '42')).toBe(word(45n));
    expect(await cast('storage', STATEBOX, SLOT0)).toBe(word(64n));
  });

  it('cast access-list: the grid[alice][7] getter touches StateBox with that one slot (eth_createAccessList)', async () => {
    const raw = await cast('access-list', STATEBOX, 'grid(address,uint256)', ALICE, '7', '--from', ALICE, '--block', '41', '--json');
    const out = JSON.parse(raw) as { accessList: Array<{ address: string; storageKeys: string[] }>; gasUsed: string };
    expect(out.accessList.map((e) => [e.address.toLowerCase(), e.storageKeys])).toEqual([[STATEBOX.toLowerCase(), [GRID_ALICE_7]]]);
    expect(Number(out.gasUsed)).toBeGreaterThan(21_000);
  });

  it('cast run of the token transfer: replayed by cast (revm) on state read from tracenode (eth_getAccountInfo), same gas as the receipt, the Transfer event', async () => {
    const out = await cast('run', TX.tokenTransfer);
    // The receipt's gasUsed is checked by the block's receiptsRoot at import; cast computes its own.
    const receiptGas = BigInt(JSON.parse(await cast('receipt', TX.tokenTransfer, '--json')).gasUsed);
    expect(out).toContain(`Gas used: ${receiptGas}`);
    expect(out).toContain('Transaction successfully executed.');
    expect(out).toMatch(/emit Transfer\(from: 0x[0-9a-fA-F]{40}, to: 0x[0-9a-fA-F]{40}, amount: 1000000000000000000000 \[1e21\]\)/);
  });

  it('cast proof: StateBox at block 15, verified against the block stateRoot', async () => {
    const p = JSON.parse(await cast('proof', STATEBOX, '0', GRID_ALICE_7, '--block', '15')) as {
      address: string;
      balance: string;
      nonce: string;
      codeHash: string;
      storageHash: string;
      accountProof: string[];
      storageProof: Array<{ key: string; value: string; proof: string[] }>;
    };
    expect([p.address, p.balance, p.nonce]).toEqual([STATEBOX, '0x0', '0x1']);
    expect(p.storageProof.map((s) => BigInt(s.value))).toEqual([valueAt(COUNTER_HISTORY, 15), valueAt(GRID_ALICE_7_HISTORY, 15)]);

    const stateRoot = await cast('block', '15', '--field', 'stateRoot');
    const leaf = verifyProof(
      hexToBytes(stateRoot as `0x${string}`),
      hexToBytes(STATEBOX),
      p.accountProof.map((n) => hexToBytes(n as `0x${string}`)),
    );
    expect(leaf).not.toBeNull();
    const [, , storageRoot, codeHash] = RLP.decode(leaf!) as Uint8Array[];
    expect([bytesToHex(storageRoot), bytesToHex(codeHash)]).toEqual([p.storageHash, p.codeHash]);
    p.storageProof.forEach((sp, i) => {
      const v = verifyProof(
        hexToBytes(p.storageHash as `0x${string}`),
        hexToBytes([SLOT0, GRID_ALICE_7][i] as `0x${string}`),
        sp.proof.map((n) => hexToBytes(n as `0x${string}`)),
      );
      expect(BigInt(bytesToHex(RLP.decode(v!) as Uint8Array))).toBe(BigInt(sp.value));
    });
  });

  it('cast call with a function signature and args, at historic blocks; Probe.env() at block 30', async () => {
    expect(await cast('call', TOKEN, 'balanceOf(address)(uint256)', BOB, '--block', '9')).toBe('1000000000000000000000 [1e21]');
    expect(await cast('call', TOKEN, 'balanceOf(address)(uint256)', BOB, '--block', '10')).toBe('750000000000000000000 [7.5e20]');
    expect(await cast('call', TOKEN, 'balanceOf(address)(uint256)', BOB, '--block', '8')).toBe('0');
    expect(await cast('call', TOKEN, 'symbol()(string)')).toBe('"TDT"');
    expect(await cast('call', STATEBOX, 'grid(address,uint256)(uint256)', ALICE, '7', '--block', '3')).toBe('43');

    const env = lines(
      await cast('call', PROBE, 'env()(uint256,bytes32,uint256,address,uint256,uint256,uint256,uint256,uint256,address,uint256)', '--block', '30'),
    );
    expect(env[0]).toBe('30');
    expect(env[1]).toBe(BLOCK[29]);
    expect(env[2]).toMatch(/^1700000379\b/);
    expect(env[3].toLowerCase()).toBe(FEE_RECIPIENT_A);
    expect(env[7]).toMatch(/^271828\b/);
    expect(env[8]).toMatch(/^1500000000000000000\b/); // Probe's balance: 1 ETH (block 10) + 0.5 ETH (block 21)
  });

  it('cast call of a reverting function: Error(string) reason and custom-error data in the error', async () => {
    const reason = await castRun('call', THROWER, 'failWithReason()');
    expect(reason.code).not.toBe(0);
    expect(reason.stderr).toContain(`error code 3: execution reverted: ${REASON}`);
    expect(reason.stderr).toContain(REASON_DATA);

    const custom = await castRun('call', THROWER, 'failWithCustomError()', '--from', ALICE);
    expect(custom.code).not.toBe(0);
    expect(custom.stderr).toContain('error code 3: execution reverted');
    expect(custom.stderr).toContain(unauthorizedData(ALICE));
  });

  it('cast rpc trace_block: block 11 calls and the block and uncle rewards', async () => {
    const traces = JSON.parse(await cast('rpc', 'trace_block', '0xb')) as Array<{
      type: string;
      transactionHash?: string;
      traceAddress: number[];
      blockHash: string;
      blockNumber: number;
      action: Record<string, string>;
    }>;
    expect(traces).toHaveLength(7);
    expect(traces.every((t) => t.blockHash === BLOCK[11] && t.blockNumber === 11)).toBe(true);
    // tx 0: Caller.forward{1 ETH}(bob) — a CALL with value to bob under the top-level call
    expect(traces[0].action).toMatchObject({ from: ALICE, callType: 'call', value: hex(10n ** 18n) });
    expect(traces[1]).toMatchObject({ traceAddress: [0], action: { to: BOB, callType: 'call', value: hex(10n ** 18n) } });
    expect(traces.find((t) => t.action.callType === 'delegatecall')?.transactionHash).toBe(
      '0x8f4b84315c4354a6717ad6e729d1584dc85ddd94567a58197269401cae865086',
    );
    const rewards = traces.filter((t) => t.type === 'reward').map((t) => [t.action.rewardType, t.action.author, t.action.value]);
    expect(rewards).toEqual([
      ['block', MINER, '0x1d7d843dc3b48000'], // 2.125 ETH: 2 + 2/32 per uncle
      ['uncle', UNCLE_MINER_1, '0x18493fba64ef0000'], // 1.75 ETH (distance 1)
      ['uncle', UNCLE_MINER_3, '0x14d1120d7b160000'], // 1.5 ETH (distance 2)
    ]);
  });

  it('cast logs: DemoToken Transfer in blocks 8–10 by event signature, and with an indexed-arg filter', async () => {
    const sig = 'Transfer(address indexed from,address indexed to,uint256 value)';
    type Log = { address: string; topics: string[]; data: string; blockNumber: string; blockHash: string; transactionIndex: string; transactionHash: string };
    const logs = JSON.parse(await cast('logs', '--from-block', '8', '--to-block', '10', '--address', TOKEN, sig, '--json')) as Log[];
    const addr = (topic: string) => `0x${topic.slice(26)}`;
    expect(logs.map((l) => [Number(l.blockNumber), Number(l.transactionIndex), addr(l.topics[1]), addr(l.topics[2]), BigInt(l.data)])).toEqual(
      TRANSFERS_8_TO_10,
    );
    expect(logs.every((l) => l.address === TOKEN && l.topics[0] === TRANSFER_TOPIC)).toBe(true);
    expect(logs[1].transactionHash).toBe(TX.tokenTransfer);
    expect(logs[2].blockHash).toBe(BLOCK[10]);

    const toDave = JSON.parse(await cast('logs', '--from-block', '8', '--to-block', '10', '--address', TOKEN, sig, '', DAVE, '--json')) as Log[];
    expect(toDave.map((l) => [Number(l.blockNumber), addr(l.topics[1]), BigInt(l.data)])).toEqual([[10, ALICE, 100n * 10n ** 18n]]);

    // the human-readable form names the transaction
    expect(await cast('logs', '--from-block', '9', '--to-block', '9', '--address', TOKEN, sig)).toContain(`transactionHash: ${TX.tokenTransfer}`);
  });

  it('cast balance at historic blocks', async () => {
    expect(await cast('balance', ALICE, '--block', '0')).toBe('10000000000000000000000');
    expect(await cast('balance', RARE_1, '--block', '2')).toBe('0');
    expect(await cast('balance', RARE_1, '--block', '3')).toBe('1000000000000000000');
    expect(await cast('balance', RARE_1, '--block', '40', '--ether')).toBe('1.500000000000000000');
  });

  it('cast receipt and cast tx', async () => {
    expect(await cast('receipt', TX.tokenTransfer, 'status')).toBe('true');
    expect(await cast('receipt', TX.failedReason, 'status')).toBe('false');
    expect((await cast('receipt', TX.deployToken, 'contractAddress')).toLowerCase()).toBe(TOKEN); // cast prints it checksummed
    const tx = JSON.parse(await cast('tx', TX.blob, '--json')) as Record<string, unknown>;
    expect([tx.type, tx.blockNumber, tx.blockHash, tx.to, tx.from, tx.blobVersionedHashes]).toEqual([
      '0x3',
      '0x1c',
      BLOCK[28],
      BLOB_PROBE,
      ALICE,
      [BLOB_VERSIONED_HASH],
    ]);
  });
});

describeWithFoundry(['anvil'], 'anvil forking tracenode')('anvil forking tracenode', () => {
  it('debug_traceTransaction of a historic transaction through the fork equals tracenode’s own answer (callTracer)', async () => {
    const anvil = spawn(ANVIL_BIN, ['--port', '0', '--fork-url', httpUrl(server)], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      anvil.stdout.on('data', (d) => (out += d));
      anvil.stderr.on('data', (d) => (out += d));
      const port = await until(
        'anvil listening',
        async () => /Listening on [\d.]+:(\d+)/.exec(out)?.[1],
        (p) => p !== undefined,
        30_000,
        () => out,
      );
      const config = { tracer: 'callTracer' };
      // A transaction before the fork block: anvil asks the node it forks.
      const viaFork = await rawCall(`http://127.0.0.1:${port}`, 'debug_traceTransaction', [TX.tokenTransfer, config]);
      const direct = await rawCall(httpUrl(server), 'debug_traceTransaction', [TX.tokenTransfer, config]);
      expect(direct.result).toMatchObject({ type: 'CALL', to: TOKEN.toLowerCase(), gasUsed: '0xcbe5' });
      expect(viaFork.result).toEqual(direct.result);
    } finally {
      anvil.kill('SIGKILL');
    }
  });
});
