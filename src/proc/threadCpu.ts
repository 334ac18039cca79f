import { readFileSync, readlinkSync } from 'node:fs';

/**
 * The CPU time of single threads of this process, from Linux's /proc: the serving thread's and
 * each EVM worker's, so that the metrics (and the bench) can say where the process's CPU goes.
 * Elsewhere (no /proc) every reading is undefined and callers fall back to what Node measures
 * itself (event-loop active time, a wall-clock figure).
 */

/** USER_HZ: the unit of /proc's CPU times (100 on Linux). */
const CLOCK_TICKS = 100;

/** The calling thread's id (its /proc/self/task entry), or undefined without /proc. */
export function ownThreadId(): number | undefined {
  try {
    // "/proc/thread-self" links to "<pid>/task/<tid>".
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isSafeInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** User + system CPU seconds of thread `tid` of this process (the calling thread when omitted), or undefined without /proc or once it has exited. */
export function threadCpuSeconds(tid?: number): number | undefined {
  return statCpuSeconds(tid === undefined ? '/proc/thread-self/stat' : `/proc/self/task/${tid}/stat`);
}

/** User + system CPU seconds from a /proc `stat` file (a process's or a thread's), or undefined when it cannot be read. */
export function statCpuSeconds(path: string): number | undefined {
  try {
    const stat = readFileSync(path, 'utf8');
    // Fields after the command name (which may hold spaces, in parentheses): utime and stime are the 12th and 13th.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const seconds = (Number(f[11]) + Number(f[12])) / CLOCK_TICKS;
    return Number.isFinite(seconds) ? seconds : undefined;
  } catch {
    return undefined;
  }
}
