// Owns the paths of Foundry's anvil and cast binaries, written once: the anvil generator starts
// anvil from here and test/helpers/foundry.ts re-exports both for the tests. npm installs them from
// the optional dependencies @foundry-rs/anvil-linux-amd64 and @foundry-rs/cast-linux-amd64, on
// linux x64 only (docs/peers.md).
import { resolve } from 'node:path';

const MODULES = resolve(import.meta.dirname, '../../node_modules/@foundry-rs');

/** Path of the anvil binary installed by npm. */
export const ANVIL_BIN = resolve(MODULES, 'anvil-linux-amd64/bin/anvil');
/** Path of the cast binary installed by npm. */
export const CAST_BIN = resolve(MODULES, 'cast-linux-amd64/bin/cast');
