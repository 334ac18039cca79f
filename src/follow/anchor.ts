import type { Common } from '@ethereumjs/common';
import { bytesToHex } from '@ethereumjs/util';
import { builtinChainOf, createBuiltinCommon } from '../chain/chainRules.js';
import { createChainCommon, type GethGenesis, parseGenesis } from '../chain/genesis.js';
import { knownOpChain } from '../chain/op/chains.js';
import { type OpGenesisUpgrade, type OpRollup, opRulesGenesis, rollupFromGethGenesis } from '../chain/op/rollup.js';
import { DomainError } from '../errors/domainError.js';
import type { AnchorBlock } from '../import/init.js';
import { fetchAncestorHashes } from './ancestorHashes.js';
import { anchorReceipts } from './anchorReceipts.js';
import { readNodeChainConfig } from './nodeGenesis.js';
import { type Upstream, UpstreamError } from './upstream.js';
import { hexString, UpstreamBlocks } from './upstreamBlocks.js';

/**
 * The first block of an archive that starts at block N, read from the node it will follow
 * (`tracenode init --from-node URL --at N`, `serve --follow URL --from N`):
 *
 * - the chain's rules: a public network's from @ethereumjs/common by its chain id (1 mainnet,
 *   11155111 sepolia, 17000 holesky, 560048 hoodi); any other chain's from a geth genesis file's
 *   `config` (`--genesis`, no allocation needed; its chain id must be the node's); else, for a
 *   development node, found as `init --from-node` finds them (`nodeGenesis.ts`: eth_config or
 *   block 0's fields);
 * - block N: `latest`, `safe`, `finalized` or a number, fetched as the follower fetches blocks
 *   (`upstreamBlocks.ts`: raw, or rebuilt from JSON and checked against its hash); with
 *   `checkpointHash` its hash must be that one, else nothing is written;
 * - its total difficulty: the upstream's `totalDifficulty` when it answers one, else 0 (nodes
 *   dropped the field after the merge, whose blocks add no difficulty);
 * - its receipts, checked against its receiptsRoot (`anchorReceipts.ts`).
 */

/** The block named is block 0: an archive from it is the whole chain, started from the genesis (`init --from-node`). */
export class GenesisAnchorError extends DomainError {
  override readonly name = 'GenesisAnchorError';
}

/** Where the rules came from, for init's report. */
export type RulesSource = 'built-in' | 'genesis file' | 'node';

export interface AnchorOptions {
  /** `latest`, `safe`, `finalized`, or a block number (decimal or 0x-hex). */
  at: string;
  /** The hash block N must have (`--checkpoint-hash`). */
  checkpointHash?: string;
  /** A geth genesis file whose `config` gives the rules (`--genesis`). */
  genesisText?: string;
  /** A development node's OP-stack upgrade, all upgrades to it from genesis (`--op-upgrade`; anvil --network optimism). */
  opUpgrade?: OpGenesisUpgrade;
}

const TAGS = ['latest', 'safe', 'finalized'];

/** The `at` of {@link AnchorOptions} checked: a tag, or a block number above 0. Throws a plain Error naming what is wrong. */
export function parseAt(at: string): string | bigint {
  if (TAGS.includes(at)) return at;
  if (!/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(at)) throw new Error(`the start block must be latest, safe, finalized or a block number, not ${JSON.stringify(at)}`);
  const n = BigInt(at);
  if (n === 0n)
    throw new Error(
      'an archive from block 0 holds the whole chain: init it from a genesis file (--genesis) or from a development node (--from-node without --at)',
    );
  return n;
}

/** A checkpoint hash checked: 32 bytes of 0x-hex, lower-cased. */
export function parseCheckpointHash(hash: string): string {
  if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new Error(`--checkpoint-hash must be a 32-byte 0x-hex block hash, not ${JSON.stringify(hash)}`);
  return hash.toLowerCase();
}

/** Block N of the upstream with the rules to read it by, checked; throws when anything does not add up. */
export async function readAnchor(upstream: Upstream, opts: AnchorOptions): Promise<AnchorBlock & { rulesSource: RulesSource }> {
  const at = parseAt(opts.at);
  const checkpoint = opts.checkpointHash === undefined ? undefined : parseCheckpointHash(opts.checkpointHash);
  const chainId = BigInt(hexString(await upstream.call('eth_chainId'), 'eth_chainId'));
  const { rules, common, rulesSource, op } = await chainRules(upstream, chainId, opts.genesisText, opts.opUpgrade);
  const tagged = typeof at === 'bigint' ? undefined : await headerJson(upstream, at);
  const number = typeof at === 'bigint' ? at : BigInt(hexString(tagged?.number, `${at} block number`));
  // A tag that names block 0 (a young development chain's `finalized`): block 0's state is the
  // genesis allocation, which no header proves (anvil's names the empty trie's root whatever it
  // holds), so an archive cannot start there; the caller starts from the genesis instead.
  if (number === 0n) throw new GenesisAnchorError(`the followed node's ${String(at)} block is block 0`);
  const [block] = await new UpstreamBlocks(upstream, common, undefined, op).fetch(number, 1);
  const hash = bytesToHex(block.hash());
  if (block.header.number !== number) throw new UpstreamError(`the upstream answered block ${block.header.number} for block ${number}`);
  if (checkpoint !== undefined && hash !== checkpoint) {
    throw new Error(`the upstream's block ${number} is ${hash}, not the checkpoint ${checkpoint}: refusing to start there`);
  }
  const json = await headerJson(upstream, `0x${number.toString(16)}`);
  if (String(json.hash).toLowerCase() !== hash || (tagged !== undefined && String(tagged.hash).toLowerCase() !== hash)) {
    throw new UpstreamError(`the upstream's block ${number} changed while it was read (a reorganisation): try again`);
  }
  const td = json.totalDifficulty === undefined || json.totalDifficulty === null ? 0n : BigInt(hexString(json.totalDifficulty, 'totalDifficulty'));
  const receipts = await anchorReceipts(upstream, block, op);
  // The hashes BLOCKHASH may name below N: a failure here leaves them to the follower.
  const ancestors = await fetchAncestorHashes(upstream, common, block.header).catch(() => undefined);
  return { rules, common, block, totalDifficulty: td, receipts, rulesSource, ancestors };
}

/** The rules of the chain `chainId`: the genesis file's, the built-in chain's, or the node's own. */
async function chainRules(
  upstream: Upstream,
  chainId: bigint,
  genesisText: string | undefined,
  opUpgrade: OpGenesisUpgrade | undefined,
): Promise<{ rules: AnchorBlock['rules']; common: Common; rulesSource: RulesSource; op?: OpRollup }> {
  const withOp = async (genesis: GethGenesis, rules: AnchorBlock['rules'], rulesSource: RulesSource) => ({
    rules,
    common: await createChainCommon(genesis),
    rulesSource,
    ...(genesis.config.optimism === undefined ? {} : { op: rollupFromGethGenesis(genesis) }),
  });
  if (genesisText !== undefined) {
    const genesis = parseGenesis(genesisText);
    if (BigInt(genesis.config.chainId) !== chainId) throw new Error(`the genesis file's chain id is ${genesis.config.chainId}, the node's is ${chainId}`);
    return withOp(genesis, { genesisText }, 'genesis file');
  }
  const builtin = builtinChainOf(chainId);
  if (builtin !== undefined) return { rules: { builtin }, common: await createBuiltinCommon(builtin), rulesSource: 'built-in' };
  // OP Mainnet, Base, Unichain and their testnets: their rules from the Superchain Registry.
  const known = knownOpChain(chainId);
  if (known !== undefined) {
    const genesis = opRulesGenesis(known.rollup);
    return withOp(genesis, { genesisText: `${JSON.stringify(genesis, null, 2)}\n` }, 'built-in');
  }
  const { genesis } = await readNodeChainConfig(upstream, opUpgrade);
  return withOp(genesis, { genesisText: `${JSON.stringify(genesis, null, 2)}\n` }, 'node');
}

async function headerJson(upstream: Upstream, id: string): Promise<Record<string, unknown>> {
  const json = await upstream.call('eth_getBlockByNumber', [id, false]);
  if (json === null || typeof json !== 'object') throw new UpstreamError(`the upstream has no ${id} block`);
  return json as Record<string, unknown>;
}
