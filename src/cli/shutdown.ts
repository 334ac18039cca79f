import { constants } from 'node:os';

/**
 * The signals of `serve`. SIGINT or SIGTERM starts the drain (`transport/drain.ts`), bounded by
 * `transport.shutdownDrainMs`; a second one exits at once, as SIGKILL would: the datadir stays
 * consistent, since every write to it (a block, a reorganisation, a migration step) is one atomic
 * LevelDB batch, and the next start reads it as it was after the last one. SIGHUP only reloads
 * the keys file (`serve.ts`): nothing a running node reloads needs its listeners restarted.
 */

/** Resolves with the first SIGINT or SIGTERM; from then on the next one exits the process at once. */
export function firstStopSignal(write: (line: string) => void): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const exitNow = (signal: NodeJS.Signals) => {
      write(`serve: ${signal} again: exiting now; what was still running is not answered, the datadir stays consistent\n`);
      process.exit(128 + constants.signals[signal]);
    };
    const first = (signal: NodeJS.Signals) => {
      process.off('SIGINT', first);
      process.off('SIGTERM', first);
      process.on('SIGINT', exitNow);
      process.on('SIGTERM', exitNow);
      resolve(signal);
    };
    process.on('SIGINT', first);
    process.on('SIGTERM', first);
  });
}
