import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseKeysFile } from '../../src/pipeline/keys.js';
import { createMethodTable, type MethodDefinition } from '../../src/rpc/method.js';
import { CHROMIUM_ARGS, describeWithBrowser, findChromium } from '../helpers/programs.js';
import { rawHttp, type StartedServer, startServer } from '../helpers/rpcClient.js';
import { toyNetwork } from '../helpers/toyMethods.js';

/**
 * CORS in a real browser: a page served from another origin (another port of 127.0.0.1) calls
 * tracenode with `fetch` and with viem (bundled for the page), which both send
 * `Content-Type: application/json` and so make the browser send a preflight first. An open key
 * answers any origin; a key whose Origin allowlist holds the page's origin answers it; a key whose
 * allowlist does not is refused by the browser itself.
 */

const constant = (name: string, value: string): MethodDefinition<unknown> => ({ name, call: async () => value });
const methods = createMethodTable<unknown>([constant('eth_chainId', '0x109a4'), constant('eth_blockNumber', '0x40')]);

let page: Page;
let browser: Browser;
let pageServer: Server;
let pageOrigin: string;
let node: StartedServer;

describeWithBrowser('the CORS browser test')('CORS in headless Chromium', () => {
  beforeAll(async () => {
    const bundle = await build({
      stdin: {
        contents: "import { createPublicClient, http } from 'viem'; window.viem = { createPublicClient, http };",
        resolveDir: resolve(import.meta.dirname, '../..'),
      },
      bundle: true,
      format: 'iife',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
    });
    const script = bundle.outputFiles[0].text;
    pageServer = createServer((req, res) => {
      if (req.url === '/viem.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>dapp</title><script src="/viem.js"></script>');
    });
    await new Promise<void>((r) => pageServer.listen(0, '127.0.0.1', r));
    pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
    const policies = parseKeysFile(
      `keys:\n  - key: open-key\n  - key: allowed-key\n    allow: { origins: ["${pageOrigin}"] }\n  - key: other-origin-key\n    allow: { origins: ["https://app.example.com"] }\n`,
      'keys.yaml',
    );
    node = await startServer({ networks: [toyNetwork({ methods })], policies, logger: false });
    browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS });
    page = await browser.newPage();
    await page.goto(pageOrigin);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await node?.close();
    await new Promise((r) => pageServer?.close(r));
  });

  /** Runs fetch and viem in the page against `/v3/<key>`; errors come back as their message. */
  const fromPage = (key: string) =>
    page.evaluate(async (url) => {
      const settle = async <T>(p: Promise<T>) =>
        p.then(
          (value) => ({ value }),
          (e: Error) => ({ error: e.name }),
        );
      type Client = { getBlockNumber(o: object): Promise<bigint>; getChainId(): Promise<number> };
      const viem = (window as unknown as { viem: { createPublicClient(o: object): Client; http(url: string, o: object): object } }).viem;
      const client = viem.createPublicClient({ transport: viem.http(url, { retryCount: 0 }) });
      const fetched = await settle(
        fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}',
        }).then(async (r) => ({ status: r.status, body: await r.json() })),
      );
      const blockNumber = await settle(client.getBlockNumber({ cacheTime: 0 }).then((n: bigint) => n.toString()));
      const chainId = await settle(client.getChainId().then((n: number) => n));
      return { fetched, blockNumber, chainId };
    }, `${node.url}/v3/${key}`);

  it('an open key answers a page of any origin: fetch and viem get the node’s answers', async () => {
    expect(await fromPage('open-key')).toEqual({
      fetched: { value: { status: 200, body: { jsonrpc: '2.0', id: 1, result: '0x40' } } },
      blockNumber: { value: '64' },
      chainId: { value: 0x109a4 },
    });
  });

  it('a key whose Origin allowlist holds the page’s origin answers it', async () => {
    expect(await fromPage('allowed-key')).toEqual({
      fetched: { value: { status: 200, body: { jsonrpc: '2.0', id: 1, result: '0x40' } } },
      blockNumber: { value: '64' },
      chainId: { value: 0x109a4 },
    });
  });

  it('a key whose allowlist does not hold the page’s origin is refused (the browser blocks the answer)', async () => {
    const result = await fromPage('other-origin-key');
    expect(result.fetched).toEqual({ error: 'TypeError' }); // "Failed to fetch": the preflight was refused
    expect(result.blockNumber).toHaveProperty('error');
    expect(result.chainId).toHaveProperty('error');
  });

  it('the preflight answers, as the browser saw them', async () => {
    const preflight = (key: string, origin: string) =>
      rawHttp(`${node.url}/v3/${key}`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
    const open = await preflight('open-key', pageOrigin);
    expect([
      open.status,
      open.headers['access-control-allow-origin'],
      open.headers['access-control-allow-headers'],
      open.headers['access-control-max-age'],
    ]).toEqual([200, '*', 'content-type, authorization', '600']);
    const allowed = await preflight('allowed-key', pageOrigin);
    expect([allowed.status, allowed.headers['access-control-allow-origin'], allowed.headers.vary]).toEqual([200, pageOrigin, 'Origin']);
    const refused = await preflight('other-origin-key', pageOrigin);
    expect(refused.status).toBe(403);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    expect(JSON.parse(refused.text)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32002, message: 'rejected due to project ID settings' } });
  });
});
