import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAnvil } from '../../scripts/anvil/anvilProcess.js';
import { rawCall, rawResult, untilCaughtUp } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { type ServeCli, startServeCli } from '../helpers/cli.js';
import { CAST_BIN, describeWithFoundry } from '../helpers/foundry.js';

/**
 * A development node's unlocked accounts through tracenode (issue 42): anvil as users run it (ten
 * dev accounts, automine), followed by `serve --follow`. eth_accounts, eth_sendTransaction and
 * eth_sign go to anvil (follow.relayAccounts, on by default): `cast send --unlocked` and ethers'
 * `provider.getSigner()` work as they do against anvil itself; each receipt is anvil's. With the
 * setting off the methods refuse, saying why and what to do instead.
 */

describeWithFoundry(['anvil', 'cast'], "a development node's unlocked accounts")('unlocked accounts of the followed node', () => {
  const tmp = tempDir('tracenode-unlocked-');
  const KEY = 'k1';
  let anvil: Awaited<ReturnType<typeof startAnvil>>;
  let serve: ServeCli | undefined;
  const url = () => `${serve!.base}/v3/${KEY}`;

  beforeAll(async () => {
    anvil = await startAnvil([]);
    serve = await startServeCli(['--datadir', join(tmp.dir, 'data'), '--port', '0', '--api-keys', KEY, '--follow', anvil.url, '--from', 'latest']);
    await untilCaughtUp(anvil.url, url());
  }, 60_000);
  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    await serve?.exited;
    await anvil?.stop();
    tmp.cleanup();
  });

  it('eth_accounts is anvil’s, and cast send --unlocked through tracenode mines as anvil does', async () => {
    const accounts = (await rawResult(anvil.url, 'eth_accounts', [])) as string[];
    expect(accounts).toHaveLength(10);
    expect((await rawCall(url(), 'eth_accounts', [])).result).toEqual(accounts);
    const { stdout } = await promisify(execFile)(
      CAST_BIN,
      ['send', '--unlocked', '--from', accounts[0], '--rpc-url', url(), '--json', accounts[1], '--value', '7'],
      { timeout: 30_000 },
    );
    const receipt = JSON.parse(stdout) as { status: string; blockHash: string; transactionHash: string };
    expect(receipt.status).toBe('0x1');
    expect(receipt.blockHash).toBe(((await rawResult(anvil.url, 'eth_getTransactionReceipt', [receipt.transactionHash])) as { blockHash: string }).blockHash);
  }, 60_000);

  it('ethers: provider.getSigner() sends and signs through tracenode', async () => {
    const provider = new JsonRpcProvider(url(), undefined, { staticNetwork: true, pollingInterval: 50 });
    const signer = await provider.getSigner(2);
    const accounts = (await rawResult(anvil.url, 'eth_accounts', [])) as string[];
    expect((await signer.getAddress()).toLowerCase()).toBe(accounts[2]);
    const tx = await signer.sendTransaction({ to: accounts[3], value: 11n });
    const receipt = await tx.wait();
    expect(receipt?.status).toBe(1);
    const theirs = (await rawResult(anvil.url, 'eth_getTransactionReceipt', [tx.hash])) as { blockHash: string };
    expect(receipt?.blockHash).toBe(theirs.blockHash);
    // eth_sign through tracenode is anvil's signature.
    const message = '0x68656c6c6f';
    expect((await rawCall(url(), 'eth_sign', [accounts[2], message])).result).toBe(await rawResult(anvil.url, 'eth_sign', [accounts[2], message]));
    provider.destroy();
  }, 60_000);

  it('with follow.relayAccounts false: refused, saying to send to that node or sign and use eth_sendRawTransaction', async () => {
    serve?.child.kill('SIGTERM');
    await serve?.exited;
    serve = await startServeCli([
      ...['--datadir', join(tmp.dir, 'data'), '--port', '0', '--api-keys', KEY, '--follow', anvil.url],
      ...['--follow.relay-accounts', 'false'],
    ]);
    expect((await rawCall(url(), 'eth_accounts', [])).result).toEqual([]);
    const refused = await rawCall(url(), 'eth_sendTransaction', [{ from: '0x0000000000000000000000000000000000000001' }]);
    expect(refused.error).toEqual({
      code: -32004,
      message:
        "eth_sendTransaction is not supported: this node holds no keys and does not relay the followed node's accounts (follow.relayAccounts); send it to that node, or sign it and send it here with eth_sendRawTransaction",
    });
  }, 60_000);
});
