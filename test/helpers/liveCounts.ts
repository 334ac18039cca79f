import { rawHttp } from './rpcClient.js';
import { until } from './until.js';

/**
 * What a server (`base`: its http://host:port) holds for live clients, from its /metrics gauges
 * (`tracenode_subscriptions`, all networks): so a test can wait for a client library to have
 * subscribed, or for closed sockets to be dropped, instead of sleeping for it.
 */
export interface LiveCounts {
  subscriptions: number;
  filters: number;
}

export async function liveCounts(base: string): Promise<LiveCounts> {
  const text = (await rawHttp(`${base}/metrics`, { method: 'GET' })).text;
  const sum = (kind: string) =>
    [...text.matchAll(new RegExp(`^tracenode_subscriptions\\{[^}]*kind="${kind}"[^}]*\\} (\\d+)$`, 'gm'))].reduce((n, m) => n + Number(m[1]), 0);
  return { subscriptions: sum('subscription'), filters: sum('filter') };
}

/** Waits until the server counts `more` subscriptions and filters than `before` (read before the clients started). */
export async function untilSubscribed(base: string, before: LiveCounts, more: LiveCounts): Promise<void> {
  await until(
    `${more.subscriptions} more subscriptions and ${more.filters} more filters than ${JSON.stringify(before)}`,
    () => liveCounts(base),
    (now) => now.subscriptions >= before.subscriptions + more.subscriptions && now.filters >= before.filters + more.filters,
  );
}

/** Waits until the server has dropped every subscription (the sockets that held them closed). */
export async function untilNoSubscriptions(base: string): Promise<void> {
  await until(
    'the closed sockets’ subscriptions dropped',
    () => liveCounts(base),
    (now) => now.subscriptions === 0,
  );
}

/** The sum of every series of the metric `name` (a gauge or counter, any labels) on a server's /metrics. */
export async function metricSum(base: string, name: string): Promise<number> {
  const text = (await rawHttp(`${base}/metrics`, { method: 'GET' })).text;
  return [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))].reduce((n, m) => n + Number(m[1]), 0);
}

/** EVM jobs a server holds: running on a worker or waiting for one (all networks). */
export async function evmJobs(base: string): Promise<number> {
  return (await metricSum(base, 'tracenode_evm_workers_busy')) + (await metricSum(base, 'tracenode_evm_queue_length'));
}
