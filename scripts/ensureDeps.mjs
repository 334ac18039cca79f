#!/usr/bin/env node
// Installs the locked dependencies when they are missing (a fresh clone), so that `npm start` and
// `npm test` are each enough on a new machine. Does nothing when node_modules is in place.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(join(root, 'node_modules', '.package-lock.json'))) {
  console.log('setup: installing dependencies (npm ci)…');
  const r = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['ci', '--no-audit', '--no-fund'], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
