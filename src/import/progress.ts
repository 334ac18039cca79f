/**
 * Progress of a long import: blocks/s, work per second (Mgas/s for Ethereum blocks, events/s for
 * Starknet ones), current block, ETA; one summary line at the end.
 */
export interface ProgressReporter {
  /** A block is done; `work` is its gas used (or its event count, with the events unit). */
  block(number: bigint, work: bigint): void;
  done(summary: { imported: number; skipped: number }): void;
}

/** How a reporter names and scales the work of its blocks. */
export interface WorkUnit {
  /** Shown after the rate, e.g. `Mgas/s`. */
  name: string;
  /** Work units per shown unit (1e6 gas per Mgas). */
  per: number;
  /** Decimals shown. */
  digits: number;
}

export const GAS_UNIT: WorkUnit = { name: 'Mgas/s', per: 1e6, digits: 2 };
export const EVENTS_UNIT: WorkUnit = { name: 'events/s', per: 1, digits: 0 };

/**
 * Reports to a stream (stderr) at most every `intervalMs`, lines starting with `label`. Silent
 * when `out` is undefined.
 */
export function createProgress(
  total: number,
  out: NodeJS.WritableStream | undefined,
  intervalMs: number,
  unit: WorkUnit = GAS_UNIT,
  label = 'import',
  /** More to say on each line (the follower of an archive from block N: upstream calls per block). */
  extra?: () => string,
): ProgressReporter {
  const start = performance.now();
  let last = start;
  let blocks = 0;
  let workDone = 0n;
  const rate = (now: number) => {
    const secs = Math.max((now - start) / 1000, 1e-9);
    return { bps: blocks / secs, work: (Number(workDone) / unit.per / secs).toFixed(unit.digits), secs };
  };
  return {
    block(number, blockWork) {
      blocks++;
      workDone += blockWork;
      const now = performance.now();
      if (!out || now - last < intervalMs) return;
      last = now;
      const { bps, work } = rate(now);
      const eta = bps > 0 ? (total - blocks) / bps : 0;
      const more = extra === undefined ? '' : `  ${extra()}`;
      out.write(`${label}: block ${number}  ${blocks}/${total}  ${bps.toFixed(1)} blocks/s  ${work} ${unit.name}  ETA ${formatSeconds(eta)}${more}\n`);
    },
    done({ imported, skipped }) {
      if (!out) return;
      const { bps, work, secs } = rate(performance.now());
      out.write(
        `${label}: done, ${imported} blocks imported, ${skipped} already present, in ${secs.toFixed(1)} s (${bps.toFixed(1)} blocks/s, ${work} ${unit.name}${extra === undefined ? '' : `, ${extra()}`})\n`,
      );
    },
  };
}

function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${Math.round(s)}s`;
  return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
}
