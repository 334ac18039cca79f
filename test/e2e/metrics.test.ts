import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseKeysFile } from '../../src/pipeline/keys.js';
import { runCli } from '../helpers/cli.js';
import { describeWithProgram, onPath } from '../helpers/programs.js';
import { httpClient, rawHttp, type StartedServer, startServer, wsClient } from '../helpers/rpcClient.js';
import { toyNetwork } from '../helpers/toyMethods.js';

/**
 * GET /metrics after a known mix of requests: Prometheus' own `promtool check metrics` accepts the
 * exposition, every counter holds exactly the requests made (by network, method, transport and
 * outcome; per key by its id), refusals are counted by reason, and no key appears anywhere in it.
 * GET /metrics/usage gives today's calls per key id and method.
 */

const PROMTOOL = onPath('promtool');
let server: StartedServer;

/** The value of one sample line of the exposition (`name{labels} value`). */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const want = Object.entries(labels);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inside = line.slice(name.length + 1, line.lastIndexOf('}'));
    const got = Object.fromEntries([...inside.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (want.every(([k, v]) => got[k] === v) && Object.keys(got).length === want.length) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describeWithProgram(
  PROMTOOL,
  'prometheus',
  'the metrics test',
)('GET /metrics', () => {
  beforeAll(async () => {
    const policies = parseKeysFile(
      'keys:\n  - key: team-a-secret-key\n    id: team-a\n  - key: limited-secret-key\n    id: limited\n    dailyQuota: 1\n',
      'keys.yaml',
    );
    server = await startServer({ networks: [toyNetwork({ name: 'main' })], policies, logger: false });
    const a = httpClient(server.url, 'team-a-secret-key');
    await a.call('test_echo', [1]);
    await a.call('test_echo', [2]);
    await a.call('test_rpcError', []);
    await a.batch([{ method: 'test_add', params: [1, 2] }, { method: 'nope' }]);
    await a.close();
    const ws = await wsClient(server.url, 'team-a-secret-key');
    await ws.call('test_echo', [3]);
    await ws.close();
    const limited = httpClient(server.url, 'limited-secret-key');
    await limited.call('test_echo', []);
    await limited.call('test_echo', []); // over the daily quota
    await limited.close();
    await rawHttp(`${server.url}/v3/not-a-key`, { headers: { 'content-type': 'application/json' }, body: '{}' });
  });
  afterAll(() => server?.close());

  it('promtool accepts the exposition, and the counters hold exactly the requests made', async () => {
    const res = await rawHttp(`${server.url}/metrics`, { method: 'GET' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0.0.4/);
    const check = spawnSync(PROMTOOL!, ['check', 'metrics'], { input: res.text, encoding: 'utf8' });
    expect(check.stderr + check.stdout).toBe('');
    expect(check.status).toBe(0);
    const text = res.text;
    const req = (method: string, transport: string, outcome: string) =>
      sample(text, 'tracenode_requests_total', { network: 'main', method, transport, outcome });
    expect(req('test_echo', 'http', 'ok')).toBe(3);
    expect(req('test_echo', 'ws', 'ok')).toBe(1);
    expect(req('test_rpcError', 'http', '-32000')).toBe(1);
    expect(req('test_add', 'http', 'ok')).toBe(1);
    expect(req('(unknown)', 'http', '-32601')).toBe(1);
    expect(req('test_echo', 'http', '-32005')).toBe(1);
    expect(sample(text, 'tracenode_key_requests_total', { key_id: 'team-a', method: 'test_echo' })).toBe(3);
    expect(sample(text, 'tracenode_key_requests_total', { key_id: 'limited', method: 'test_echo' })).toBe(2);
    expect(sample(text, 'tracenode_refusals_total', { reason: 'auth' })).toBe(1);
    expect(sample(text, 'tracenode_refusals_total', { reason: 'quota' })).toBe(1);
    expect(sample(text, 'tracenode_request_duration_seconds_count', { network: 'main', method: 'test_echo' })).toBe(5);
    expect(sample(text, 'tracenode_requests_in_flight', { transport: 'http' })).toBe(0);
    expect(sample(text, 'tracenode_websocket_connections', {})).toBeUndefined(); // no labels: written without braces
    expect(text).toMatch(/^tracenode_websocket_connections 0$/m);
    expect(text).toMatch(/^tracenode_process_cpu_seconds_total /m);
    // The serving thread (here the test's own) has answered the requests above: it has used CPU.
    expect(Number(/^tracenode_serving_thread_cpu_seconds_total (\S+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
    expect(text).not.toContain('secret-key');
    expect(text).not.toContain('not-a-key');
  });

  it('GET /metrics/usage: today’s calls per key id and method', async () => {
    const res = await rawHttp(`${server.url}/metrics/usage`, { method: 'GET' });
    expect(JSON.parse(res.text)).toEqual({
      day: new Date().toISOString().slice(0, 10),
      keys: { 'team-a': { test_echo: 3, test_rpcError: 1, test_add: 1, '(unknown)': 1 }, limited: { test_echo: 2 } },
    });
  });

  it('tracenode keys usage prints the same counts as a table', async () => {
    const out = await runCli(['keys', 'usage', '--url', server.url]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(
      [
        `calls on ${new Date().toISOString().slice(0, 10)} (UTC)`,
        'key id   method         calls',
        'limited  test_echo          2',
        'limited  (all)              2',
        'team-a   test_echo          3',
        'team-a   (unknown)          1',
        'team-a   test_add           1',
        'team-a   test_rpcError      1',
        'team-a   (all)              6',
        '',
      ].join('\n'),
    );
  });
});
