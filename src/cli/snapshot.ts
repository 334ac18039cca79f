import { existsSync } from 'node:fs';
import { openDatabase } from '../db/database.js';
import { type SnapshotProgress, snapshotDatabase } from '../db/snapshot.js';
import { controlSocketPath, requestSnapshot } from './control.js';
import { type CommandSpec, commandHelp, parseCommand, requiredDatadir, UsageError } from './options.js';

const SPEC: CommandSpec = { settings: ['server.datadir'] };
export const SNAPSHOT_HELP = commandHelp(
  'tracenode snapshot --datadir DIR OUT',
  'Writes a consistent copy of a datadir to the new directory OUT, for a new replica to start\n' +
    'from (`serve --datadir OUT --follow URL` then catches up from the upstream). While DIR is\n' +
    "served, the serving process makes the copy (asked through DIR's control socket) and goes on\n" +
    'serving and following: the copy is the database as of the moment it starts, every block whole.\n' +
    'Otherwise the datadir is opened and copied here. Progress lines go to stderr; the copy is\n' +
    'written to OUT.partial and renamed to OUT when complete.',
  SPEC,
);

/** `tracenode snapshot`. */
export async function runSnapshot(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, SPEC);
  if (parsed.help) {
    process.stdout.write(SNAPSHOT_HELP);
    return 0;
  }
  const { config, positionals } = parsed;
  const datadir = requiredDatadir(config);
  if (positionals.length !== 1) throw new UsageError('give one output directory: tracenode snapshot --datadir DIR OUT');
  const out = positionals[0];
  const progress = (p: SnapshotProgress) =>
    process.stderr.write(
      `snapshot: ${p.entries} entries, ${mib(p.bytes)} MiB in ${p.seconds.toFixed(1)} s (${mib(p.bytes / Math.max(p.seconds, 1e-3))} MiB/s)\n`,
    );
  let done: SnapshotProgress;
  if (existsSync(controlSocketPath(datadir))) {
    done = await requestSnapshot(datadir, out, progress);
  } else {
    const level = await openDatabase(datadir).catch((err: Error) => {
      // Locked with no control socket: served by a process too old for snapshots, or one whose
      // socket path was too long (it logged that at start).
      throw new Error(`${err.message} (served by a process without a control socket at ${controlSocketPath(datadir)}?)`);
    });
    try {
      done = await snapshotDatabase(level, out, progress);
    } finally {
      await level.close();
    }
  }
  process.stdout.write(`snapshot: ${out} written: ${done.entries} entries, ${mib(done.bytes)} MiB in ${done.seconds.toFixed(1)} s\n`);
  return 0;
}

const mib = (b: number) => (b / 1024 / 1024).toFixed(1);
