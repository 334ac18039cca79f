import { type Block, createBlockFromRLP } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { hexToBytes } from '@ethereumjs/util';
import { opBlock, opBlockFromBytes } from '../chain/op/opBlock.js';
import type { OpRollup } from '../chain/op/rollup.js';
import { blockFromRpc } from './blockFromRpc.js';
import { opBlockFromRpc } from './opBlockFromRpc.js';
import { type Call, type Upstream, UpstreamError, UpstreamRpcError } from './upstream.js';

/**
 * Blocks of an upstream node by number, as the follower takes them (`follower.ts`) and as an
 * archive that starts at block N takes its first block (`anchor.ts`): `debug_getRawBlock` (geth,
 * reth, erigon), or, when the upstream has no such method (anvil), rebuilt from
 * `eth_getBlockByNumber(n, true)` and refused unless their hash is the upstream's
 * (`blockFromRpc.ts`). Which of the two works is found on the first fetch and kept.
 */
export class UpstreamBlocks {
  private rawBlocks: boolean | undefined;

  constructor(
    private readonly upstream: Upstream,
    private readonly common: Common,
    /** Told once when blocks are rebuilt from JSON. */
    private readonly info: (obj: object, msg: string) => void = () => {},
    /** An OP-stack chain's rules: its blocks hold deposits (`opBlockFromRpc.ts`, `chain/op/opBlock.ts`). */
    private readonly op?: OpRollup,
  ) {}

  /** Blocks from..from+count-1 of the upstream, raw when it serves them raw, else rebuilt from JSON. */
  async fetch(from: bigint, count: number): Promise<Block[]> {
    const numbers = Array.from({ length: count }, (_, i) => `0x${(from + BigInt(i)).toString(16)}`);
    const common = this.common;
    if (this.rawBlocks !== false) {
      try {
        const raws = await this.upstream.batch(numbers.map((n): Call => ({ method: 'debug_getRawBlock', params: [n] })));
        this.rawBlocks = true;
        return raws.map((raw, i) => {
          try {
            const bytes = hexToBytes(hexString(raw, `debug_getRawBlock ${numbers[i]}`) as `0x${string}`);
            return this.op ? opBlockFromBytes(bytes, common) : createBlockFromRLP(bytes, { common, setHardfork: true });
          } catch (err) {
            throw new UpstreamError(`upstream block ${numbers[i]}: cannot decode its RLP: ${(err as Error).message.split('\n')[0]}`);
          }
        });
      } catch (err) {
        // An error answer before debug_getRawBlock ever worked means the upstream has no such method
        // (anvil: -32601 over HTTP, -32602 "did not match any variant" over WebSocket): rebuild
        // blocks from their JSON from now on. Once it has worked, an error is a fault like any other.
        const neverWorked = (this.rawBlocks as boolean | undefined) !== true;
        if (!(err instanceof UpstreamRpcError && neverWorked)) throw err;
        // Several fetches may find out at once (prefetch): one line.
        const first = (this.rawBlocks as boolean | undefined) !== false;
        this.rawBlocks = false;
        if (first)
          this.info(
            { upstream: this.upstream.shownUrl },
            'upstream has no debug_getRawBlock: blocks are rebuilt from eth_getBlockByNumber and checked against their hash',
          );
      }
    }
    const jsons = await this.upstream.batch(numbers.map((n): Call => ({ method: 'eth_getBlockByNumber', params: [n, true] })));
    const blocks: Block[] = [];
    for (const [i, json] of jsons.entries()) {
      if (json === null || typeof json !== 'object') throw new UpstreamError(`upstream has no block ${numbers[i]}`);
      const uncleHashes = (json as { uncles?: unknown }).uncles;
      const uncles =
        Array.isArray(uncleHashes) && uncleHashes.length > 0
          ? await this.upstream.batch(
              uncleHashes.map((_, u): Call => ({ method: 'eth_getUncleByBlockNumberAndIndex', params: [numbers[i], `0x${u.toString(16)}`] })),
            )
          : [];
      try {
        blocks.push(this.op ? await opBlockOf(json, this.op) : blockFromRpc(json, uncles, common));
      } catch (err) {
        throw new UpstreamError(`upstream block ${numbers[i]}: ${(err as Error).message}`);
      }
    }
    return blocks;
  }
}

/** An OP-stack block from its JSON (checked against its hashes and roots by `opBlockFromRpc`); an OP block carries no withdrawals. */
async function opBlockOf(json: object, op: OpRollup): Promise<Block> {
  const withdrawals = (json as { withdrawals?: unknown }).withdrawals;
  if (Array.isArray(withdrawals) && withdrawals.length > 0) throw new Error(`an OP-stack block carries no withdrawals, this one ${withdrawals.length}`);
  const { header, transactions } = await opBlockFromRpc(json, op);
  return opBlock(header, transactions, header.common.isActivatedEIP(4895) ? [] : undefined);
}

/** `value` if it is a 0x-hex string, else an {@link UpstreamError} naming `what`. */
export function hexString(value: unknown, what: string): string {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]*$/.test(value)) throw new UpstreamError(`upstream answered a malformed ${what}`);
  return value;
}
