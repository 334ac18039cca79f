#!/usr/bin/env node
// Converts feeder-gateway state updates (`get_state_update` bodies, or `{block, state_update}`
// files) into Starknet JSON-RPC 0.8 STATE_UPDATE objects, one per line on stdout: the format of
// `tracenode import-starknet --state-updates`. Felts are copied verbatim, lower-cased; entries
// keep the source's order.
//
//   node scripts/starknetStateUpdates.mjs update1.json [update2.json…] > state-updates.ndjson
import { readFileSync } from 'node:fs';

const lower = (felt) => felt.toLowerCase();

function convert(file) {
  const body = JSON.parse(readFileSync(file, 'utf8'));
  const update = body.state_update ?? body;
  const d = update.state_diff;
  return {
    block_hash: lower(update.block_hash),
    new_root: lower(update.new_root),
    old_root: lower(update.old_root),
    state_diff: {
      storage_diffs: Object.entries(d.storage_diffs ?? {}).map(([address, entries]) => ({
        address: lower(address),
        storage_entries: entries.map((e) => ({ key: lower(e.key), value: lower(e.value) })),
      })),
      deprecated_declared_classes: (d.old_declared_contracts ?? []).map(lower),
      declared_classes: (d.declared_classes ?? []).map((c) => ({ class_hash: lower(c.class_hash), compiled_class_hash: lower(c.compiled_class_hash) })),
      deployed_contracts: (d.deployed_contracts ?? []).map((c) => ({ address: lower(c.address), class_hash: lower(c.class_hash) })),
      replaced_classes: (d.replaced_classes ?? []).map((c) => ({ contract_address: lower(c.address), class_hash: lower(c.class_hash) })),
      nonces: Object.entries(d.nonces ?? {}).map(([address, nonce]) => ({ contract_address: lower(address), nonce: lower(nonce) })),
    },
  };
}

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: node scripts/starknetStateUpdates.mjs update.json [more.json…] > state-updates.ndjson\n');
  process.exit(2);
}
for (const file of files) process.stdout.write(`${JSON.stringify(convert(file))}\n`);
