import { setFlagsFromString } from 'node:v8';

/**
 * V8 flags every tracenode process sets on itself when it starts, before any work: what a user
 * would otherwise have to pass to `node` in every way of starting it (`npm start`, the `tracenode`
 * bin, a service unit, a container).
 *
 * `--no-allocation-site-pretenuring`. V8 watches how many objects of each allocation site survive
 * a young-generation collection; when most of them do, it allocates that site's objects straight
 * in the old generation. A server under load trips this: at a collection, the requests in flight
 * survive, so V8 decides that the sites of Node's `IncomingMessage`, `ServerResponse` and header
 * strings make long-lived objects, and from then on every request's objects are born old and die
 * old. Scavenges then walk their old-to-young references, and only full collections free them.
 * Measured on the bench chain's datadir (10 keep-alive connections, `eth_blockNumber`): with the
 * pretenuring, ~3.6 KB per request were freed by full collections and scavenges cost 5.3 µs a
 * request; without it, 0.07 KB and 0.95 µs, and the process's CPU per request fell from 33 to
 * 20 µs (`eth_getStorageAt` 36 → 23 µs, an `eth_call` view 136 → 106 µs). Offline import runs at
 * the same speed either way (23.5 Mgas/s). V8 reads this flag at each collection, so setting it at
 * run time takes effect; it is process-wide, so the worker threads get it too.
 */
export const V8_FLAGS: readonly string[] = ['--no-allocation-site-pretenuring'];

/** A flag's name without its `--` or `--no-` prefix and value, with `_` read as `-`, as V8 reads it. */
function flagName(arg: string): string {
  return arg
    .replace(/^--(no-)?/, '')
    .split('=')[0]!
    .replaceAll('_', '-');
}

/**
 * Sets {@link V8_FLAGS}, except those the process was started with in either form (`node
 * --allocation-site-pretenuring dist/cli.js …` keeps V8's default); returns the flags it set.
 */
export function setV8Flags(execArgv: readonly string[] = process.execArgv, set: (flag: string) => void = setFlagsFromString): string[] {
  const given = new Set(execArgv.filter((a) => a.startsWith('--')).map(flagName));
  const applied = V8_FLAGS.filter((flag) => !given.has(flagName(flag)));
  for (const flag of applied) set(flag);
  return applied;
}
