import { constants } from 'node:os';

/**
 * The signals of `serve`. SIGINT or SIGTERM starts the drain (`transport/drain.ts`), bounded by
 * `transport.shutdownDrainMs`; a second one exits at once, as SIGKILL would: the datadir stays
 * consistent, since every write to it (a block, a reorganisation, a migration step) is one atomic
 * LevelDB batch, and the next start reads it as it was after the last one. A second signal within
 * `transport.shutdownRepeatGraceMs` of the first is the same stop reaching the node twice (a
 * process group stopped as a whole, whose parent — npm, a shell, systemd — forwards it too) and
 * is not acted on. SIGHUP only reloads the keys file (`serve.ts`): nothing a running node reloads
 * needs its listeners restarted.
 */

/** Resolves with the first SIGINT or SIGTERM; from then on the next one after `repeatGraceMs` exits the process at once. */
export function firstStopSignal(write: (line: string) => void, repeatGraceMs = 1000): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let firstAt = 0;
    let saidRepeat = false;
    const again = (signal: NodeJS.Signals) => {
      if (performance.now() - firstAt < repeatGraceMs) {
        if (!saidRepeat) {
          saidRepeat = true;
          write(
            `serve: ${signal} again within ${repeatGraceMs} ms: the same stop (a process group's signal its parent forwarded too); still draining — send it again to exit now\n`,
          );
        }
        return;
      }
      write(`serve: ${signal} again: exiting now; what was still running is not answered, the datadir stays consistent\n`);
      process.exit(128 + constants.signals[signal]);
    };
    const first = (signal: NodeJS.Signals) => {
      firstAt = performance.now();
      process.off('SIGINT', first);
      process.off('SIGTERM', first);
      process.on('SIGINT', again);
      process.on('SIGTERM', again);
      resolve(signal);
    };
    process.on('SIGINT', first);
    process.on('SIGTERM', first);
  });
}
