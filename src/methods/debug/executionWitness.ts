import type { Block, BlockHeader } from '@ethereumjs/block';
import { bytesToHex, equalsBytes } from '@ethereumjs/util';
import { type BlockId, BlockNumberOrHash } from '../../codec/blockId.js';
import { bigIntToQuantity, bytesToData } from '../../codec/hex.js';
import { ServerError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext, EthRequest } from '../context.js';
import { formatHeader } from '../eth/_shared/formatBlock.js';
import { blockNumberOf } from '../eth/_shared/resolveBlock.js';
import { evmRequest } from '../evmRequest.js';
import { REPLAY } from '../raises.js';

/**
 * `debug_executionWitness(block)`: what executing a stored block needs besides the block, as
 * geth's `DebugAPI.ExecutionWitness` answers it (ethereum/go-ethereum `eth/api_debug.go`,
 * `core/stateless/encoding.go` `ExtWitness`): `headers` (geth's header objects, oldest first, the
 * parent last), `codes` and `state` (the RLP-encoded trie nodes read while the block ran and its
 * post-state root was computed), both sorted bytewise, and `keys`, which geth declares and
 * leaves null. The block runs in the EVM workers under the debug tracers' timeout
 * (`tracing/witness.ts`). Errors are geth's texts, which print the block parameter as Go prints
 * the struct (`{0x5 <nil> false}`): an unknown block is `block {…} not found`, the genesis
 * `block {…} found, but parent missing`.
 */
export const executionWitness = defineMethod({
  name: 'debug_executionWitness',
  raises: REPLAY,
  cost: 'heavy', // executes the block in the EVM workers
  evm: true,
  params: [BlockNumberOrHash],
  required: 1,
  handler: async (ctx: EthContext, [id], req) => {
    const block = await findBlock(ctx, id, req);
    if (!block) throw new ServerError(`block ${goPrinted(id)} not found`);
    if (block.header.number === 0n) throw new ServerError(`block ${goPrinted(id)} found, but parent missing`);
    const witness = await ctx.evm.witness(block, evmRequest(req));
    return {
      headers: witness.headers.map(gethHeader),
      codes: witness.codes.map(bytesToData),
      state: witness.nodes.map(bytesToData),
      keys: null,
    };
  },
});

/** The stored block `id` names (tags name the head, as everywhere here); undefined when none. */
async function findBlock(ctx: EthContext, id: BlockId, req?: EthRequest): Promise<Block | undefined> {
  const store = ctx.chain.store;
  if (id.kind !== 'hash') {
    const hash = await store.canonicalHash(await blockNumberOf(ctx, id, req));
    return hash ? store.blockByHash(hash) : undefined;
  }
  const block = await store.blockByHash(id.hash);
  if (!block || !id.requireCanonical) return block;
  // geth answers a hash that is not canonical (asked to be) with the same `not found`.
  const canonical = await store.canonicalHash(block.header.number);
  return canonical && equalsBytes(canonical, id.hash) ? block : undefined;
}

/**
 * The block parameter as geth's `fmt.Errorf("block %v …", bn)` prints it: `rpc.BlockNumberOrHash`
 * is a struct whose `String` method has a pointer receiver, so `%v` prints its fields, each with
 * its own `String`/`Format` (`0x5`, `latest`, the hash) or `<nil>`, and `RequireCanonical`.
 */
function goPrinted(id: BlockId): string {
  if (id.kind === 'hash') return `{<nil> ${bytesToHex(id.hash)} ${id.requireCanonical}}`;
  return `{${id.kind === 'tag' ? id.tag : bigIntToQuantity(id.number)} <nil> false}`;
}

/**
 * A header as geth's `types.Header` marshals itself (`core/types/gen_header_json.go`), which is
 * how `ExtWitness` carries its headers: the fields in the struct's order, every fork's field
 * present (`null` when the header has none), `hash` last. Not `RPCMarshalHeader`'s shape (that of
 * eth_getBlockByNumber), which leaves absent fields out.
 */
function gethHeader(header: BlockHeader): Record<string, string | null> {
  const h = formatHeader(header);
  return {
    parentHash: h.parentHash,
    sha3Uncles: h.sha3Uncles,
    miner: h.miner,
    stateRoot: h.stateRoot,
    transactionsRoot: h.transactionsRoot,
    receiptsRoot: h.receiptsRoot,
    logsBloom: h.logsBloom,
    difficulty: h.difficulty,
    number: h.number,
    gasLimit: h.gasLimit,
    gasUsed: h.gasUsed,
    timestamp: h.timestamp,
    extraData: h.extraData,
    mixHash: h.mixHash,
    nonce: h.nonce,
    baseFeePerGas: h.baseFeePerGas ?? null,
    withdrawalsRoot: h.withdrawalsRoot ?? null,
    blobGasUsed: h.blobGasUsed ?? null,
    excessBlobGas: h.excessBlobGas ?? null,
    parentBeaconBlockRoot: h.parentBeaconBlockRoot ?? null,
    requestsHash: h.requestsHash ?? null,
    blockAccessListHash: header.blockAccessListHash === undefined ? null : bytesToData(header.blockAccessListHash),
    slotNumber: header.slotNumber === undefined ? null : bigIntToQuantity(header.slotNumber),
    hash: h.hash,
  };
}
