import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Programs from Debian packages that the tests and the bench drive (redis-server, haproxy,
 * chromium, promtool): whether one is installed. `.ci/run` installs them; elsewhere what needs a
 * missing one is skipped with a line saying what to install.
 */

/** The first of `names` found on PATH, or undefined. */
export function onPath(...names: string[]): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of names) {
      const path = join(dir, name);
      if (existsSync(path)) return path;
    }
  }
  return undefined;
}
