/** Progress of a long import: blocks/s, Mgas/s, current block, ETA; one summary line at the end. */
export interface ProgressReporter {
  block(number: bigint, gasUsed: bigint): void;
  done(summary: { imported: number; skipped: number }): void;
}

/** Reports to a stream (stderr) at most every `intervalMs`. Silent when `out` is undefined. */
export function createProgress(total: number, out: NodeJS.WritableStream | undefined, intervalMs: number): ProgressReporter {
  const start = performance.now();
  let last = start;
  let blocks = 0;
  let gas = 0n;
  const rate = (now: number) => {
    const secs = Math.max((now - start) / 1000, 1e-9);
    return { bps: blocks / secs, mgas: Number(gas) / 1e6 / secs, secs };
  };
  return {
    block(number, gasUsed) {
      blocks++;
      gas += gasUsed;
      const now = performance.now();
      if (!out || now - last < intervalMs) return;
      last = now;
      const { bps, mgas } = rate(now);
      const eta = bps > 0 ? (total - blocks) / bps : 0;
      out.write(`import: block ${number}  ${blocks}/${total}  ${bps.toFixed(1)} blocks/s  ${mgas.toFixed(2)} Mgas/s  ETA ${formatSeconds(eta)}\n`);
    },
    done({ imported, skipped }) {
      if (!out) return;
      const { bps, mgas, secs } = rate(performance.now());
      out.write(
        `import: done, ${imported} blocks imported, ${skipped} already present, in ${secs.toFixed(1)} s (${bps.toFixed(1)} blocks/s, ${mgas.toFixed(2)} Mgas/s)\n`,
      );
    },
  };
}

function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${Math.round(s)}s`;
  return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
}
