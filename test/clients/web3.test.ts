import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Address, encodeAbiParameters } from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Web3 } from 'web3';
import { type BareAnvil, startBareAnvil } from '../../scripts/anvil/bareAnvil.js';
import { TICK_INITCODE, TICK_TOPIC } from '../../scripts/anvil/tickContract.js';
import { initDatadir } from '../../src/import/init.js';
import { untilCaughtUp } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { type ServeCli, startServeCli } from '../helpers/cli.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import { testConfig } from '../helpers/testConfig.js';
import { until } from '../helpers/until.js';

/**
 * web3.js v4 subscriptions against `tracenode serve --follow` beside anvil: `subscribe('newBlockHeaders')`
 * and `subscribe('logs')` over WebSocket receive exactly the blocks and logs anvil made, in order
 * (hashes and log fields equal to anvil's answers), and after a reorganisation (evm_snapshot, a
 * block, evm_revert, a longer branch) the dropped log again with `removed: true` before the new
 * branch's.
 */

const describe = describeWithFoundry(['anvil'], 'web3.js subscriptions');
const tmp = tempDir('tracenode-web3-');
const KEY = 'web3-key';
let anvil: BareAnvil;
let serve: ServeCli;
let ticker: Address;

/** Waits until tracenode's latest block is anvil's. */
const caughtUp = () => untilCaughtUp(anvil.url, `${serve.base}/v3/${KEY}`);

interface Head {
  hash: string;
  number: bigint;
  parentHash: string;
}

/** `Tick(id, value)` sent and mined in a block of its own; resolves anvil's log and block header. */
async function tick(id: bigint, value: bigint): Promise<{ log: LogFields; block: Head }> {
  const hash = await anvil.send({ to: ticker, data: encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [id, value]), gas: 0x30000n });
  await anvil.mine();
  const receipt = (await anvil.call('eth_getTransactionReceipt', [hash])) as { blockHash: string; logs: RawLog[] };
  expect(receipt.logs).toHaveLength(1);
  const b = (await anvil.call('eth_getBlockByHash', [receipt.blockHash, false])) as { hash: string; number: string; parentHash: string };
  return { log: fields(receipt.logs[0]), block: { hash: b.hash, number: BigInt(b.number), parentHash: b.parentHash } };
}

interface RawLog {
  address: string;
  blockHash: string;
  blockNumber: string | bigint;
  transactionHash: string;
  logIndex: string | bigint;
  data: string;
  topics: string[];
  removed?: boolean;
}

/** The fields compared: as anvil's receipt gives them (web3.js gives numbers as bigint). */
interface LogFields {
  address: string;
  blockHash: string;
  blockNumber: bigint;
  transactionHash: string;
  logIndex: bigint;
  data: string;
  topics: string[];
  removed: boolean;
}

const fields = (l: RawLog): LogFields => ({
  address: l.address.toLowerCase(),
  blockHash: l.blockHash,
  blockNumber: BigInt(l.blockNumber),
  transactionHash: l.transactionHash,
  logIndex: BigInt(l.logIndex),
  data: l.data,
  topics: [...l.topics],
  removed: l.removed ?? false,
});

beforeAll(async () => {
  anvil = await startBareAnvil(join(tmp.dir, 'anvil'));
  const datadir = join(tmp.dir, 'data');
  await initDatadir(datadir, readFileSync(anvil.genesisPath, 'utf8'), testConfig());
  const deploy = await anvil.send({ data: TICK_INITCODE, gas: 0x100000n });
  await anvil.mine();
  ticker = ((await anvil.call('eth_getTransactionReceipt', [deploy])) as { contractAddress: Address }).contractAddress;
  serve = await startServeCli([
    ...['--datadir', datadir, '--port', '0', '--api-keys', KEY, '--log-level', 'warn'],
    ...['--follow', anvil.url, '--follow.poll-interval-ms', '50'],
  ]);
  await caughtUp();
}, 60_000);

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  await anvil?.stop();
  tmp.cleanup();
});

describe('web3.js v4', () => {
  it("subscribe('newBlockHeaders') and subscribe('logs'): exactly anvil's blocks and logs, and the removed log after a reorganisation", async () => {
    const web3 = new Web3(`${serve.base.replace('http://', 'ws://')}/ws/v3/${KEY}`);
    const heads: Head[] = [];
    const logs: LogFields[] = [];
    const errors: unknown[] = [];
    const headSub = await web3.eth.subscribe('newBlockHeaders');
    headSub.on('data', (h) => {
      heads.push({ hash: String(h.hash), number: BigInt(h.number ?? -1), parentHash: String(h.parentHash) });
    });
    headSub.on('error', (e) => {
      errors.push(e);
    });
    const logSub = await web3.eth.subscribe('logs', { address: ticker, topics: [TICK_TOPIC] });
    logSub.on('data', (l) => {
      logs.push(fields(l as unknown as RawLog));
    });
    logSub.on('error', (e) => {
      errors.push(e);
    });

    // Branch A: one Tick in one block.
    const snapshot = await anvil.call('evm_snapshot');
    const a1 = await tick(1n, 101n);
    await caughtUp();
    await until(
      'branch A',
      () => logs.length,
      (n) => n === 1,
    );
    // Branch B, one block longer: two Ticks in two blocks.
    expect(await anvil.call('evm_revert', [snapshot])).toBe(true);
    const b2 = await tick(2n, 102n);
    const b3 = await tick(3n, 103n);
    await caughtUp();
    await until(
      'branch B',
      () => logs.length,
      (n) => n === 4,
    );

    expect(logs).toEqual([a1.log, { ...a1.log, removed: true }, b2.log, b3.log]);
    expect(heads).toEqual([a1.block, b2.block, b3.block]);
    expect(errors).toEqual([]);
    await web3.eth.clearSubscriptions();
    (web3.currentProvider as unknown as { disconnect(): void }).disconnect();
  }, 30_000);
});
