import type { StateManagerInterface } from '@ethereumjs/common';
import type { EVM, Log } from '@ethereumjs/evm';
import { Address, bigIntToBytes, bigIntToUnpaddedBytes, concatBytes, equalsBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { type BlockContext, evmBlock } from '../blockContext.js';
import { CallError } from '../callResult.js';
import { pointEvmAt } from '../evm/journal.js';

/**
 * What a client does to a block's state besides its transactions, as geth's simulator does it
 * (ethereum/go-ethereum `internal/ethapi/simulate.go`, `core/state_processor.go`): before the
 * calls, the EIP-4788 beacon root and the EIP-2935 parent hash are stored as their system
 * contracts store them; after them, the block's EIP-7685 requests: EIP-6110 deposits parsed from
 * the deposit contract's logs, then the EIP-7002/7251 request contracts called as system calls.
 */

const BEACON_ROOTS = new Address(hexToBytes('0x000f3df6d732807ef1319fb7b8bb8522d0beac02'));
const BEACON_ROOTS_LENGTH = 8191n;
const HISTORY_STORAGE = new Address(hexToBytes('0x0000f90827f1c53a10cb7a02335b175320002935'));
const HISTORY_SERVE_WINDOW = 8191n;
const SYSTEM_ADDRESS = new Address(hexToBytes('0xfffffffffffffffffffffffffffffffffffffffe'));
const SYSTEM_CALL_GAS = 30_000_000n;
/** EIP-7002 withdrawal and EIP-7251 consolidation request contracts, with their request types. */
const REQUEST_CONTRACTS: Array<[number, Address]> = [
  [0x01, new Address(hexToBytes('0x00000961ef480eb55e80d19ad83579a64c007002'))],
  [0x02, new Address(hexToBytes('0x0000bbddc7ce488642fb579f8b00f3a590007251'))],
];
const MAINNET_DEPOSIT_CONTRACT = '0x00000000219ab540356cbb839cbe05303d7705fa';
/** keccak256("DepositEvent(bytes,bytes,bytes,bytes,bytes)"), the deposit contract's event. */
const DEPOSIT_TOPIC = hexToBytes('0x649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5');

/**
 * The deposit contract of a chain, as geth's chain config has it: the genesis config's
 * `depositContractAddress`, mainnet's for chain id 1 without one, else the zero address.
 */
export function depositContractOf(config: Record<string, unknown>): Uint8Array {
  const given = config.depositContractAddress;
  if (typeof given === 'string' && /^0x[0-9a-fA-F]{40}$/.test(given)) return hexToBytes(given.toLowerCase() as `0x${string}`);
  return config.chainId === 1 ? hexToBytes(MAINNET_DEPOSIT_CONTRACT) : new Uint8Array(20);
}

/**
 * Before a block's calls (geth's ProcessBeaconBlockRoot and ProcessParentBlockHash): from Cancun
 * the beacon root and the block's time in the EIP-4788 ring buffers, from Prague the parent's hash
 * in the EIP-2935 history, each only where the system contract has code.
 */
export async function storeParentRoots(
  sm: StateManagerInterface,
  ctx: BlockContext,
  beaconRoot: Uint8Array | undefined,
  parentHash: Uint8Array,
): Promise<void> {
  const { common } = ctx.fork;
  if (common.isActivatedEIP(4844) && (await sm.getCode(BEACON_ROOTS)).length > 0) {
    const idx = ctx.timestamp % BEACON_ROOTS_LENGTH;
    await sm.putStorage(BEACON_ROOTS, slotKey(idx), bigIntToUnpaddedBytes(ctx.timestamp));
    await sm.putStorage(BEACON_ROOTS, slotKey(idx + BEACON_ROOTS_LENGTH), beaconRoot!);
  }
  if (common.isActivatedEIP(7685) && (await sm.getCode(HISTORY_STORAGE)).length > 0) {
    await sm.putStorage(HISTORY_STORAGE, slotKey((ctx.number - 1n) % HISTORY_SERVE_WINDOW), parentHash);
  }
}

/**
 * A Prague block's EIP-7685 requests after its calls, each `type ‖ data`, in geth's order: the
 * deposits of `logs` (type 0), then the output of each request contract called by the system
 * address (types 1 and 2); a request type with nothing is left out. Throws {@link CallError}
 * with geth's texts for a malformed deposit or a failed system call.
 */
export async function blockRequests(evm: EVM, sm: StateManagerInterface, ctx: BlockContext, logs: Log[], depositContract: Uint8Array): Promise<Uint8Array[]> {
  const requests: Uint8Array[] = [];
  const deposits = depositRequests(logs, depositContract);
  if (deposits.length > 0) requests.push(concatBytes(Uint8Array.of(0x00), deposits));
  pointEvmAt(evm, sm);
  for (const [type, address] of REQUEST_CONTRACTS) {
    if ((await sm.getCode(address)).length === 0) continue;
    const system = await sm.getAccount(SYSTEM_ADDRESS);
    const r = await evm.runCall({
      block: evmBlock(ctx) as never,
      caller: SYSTEM_ADDRESS,
      to: address,
      gasLimit: SYSTEM_CALL_GAS,
      origin: SYSTEM_ADDRESS,
    });
    // a system call leaves no trace of the system address
    if (system === undefined) await sm.deleteAccount(SYSTEM_ADDRESS);
    else await sm.putAccount(SYSTEM_ADDRESS, system);
    if (r.execResult.exceptionError) throw new CallError(`system call failed to execute: ${r.execResult.exceptionError.error}`);
    if (r.execResult.returnValue.length > 0) requests.push(concatBytes(Uint8Array.of(type), r.execResult.returnValue));
  }
  return requests;
}

/**
 * EIP-6110 deposit requests of a block's logs, as geth's ParseDepositLogs: each DepositEvent of the
 * deposit contract gives pubkey ‖ withdrawal credentials ‖ amount ‖ signature ‖ index, read from the
 * event's fixed ABI layout (576 bytes; another layout fails the request as geth's does).
 */
function depositRequests(logs: Log[], contract: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [address, topics, data] of logs) {
    if (!equalsBytes(address, contract) || topics.length === 0 || !equalsBytes(topics[0]!, DEPOSIT_TOPIC)) continue;
    if (data.length !== 576) throw new CallError(`unable to parse deposit data: deposit wrong length: want 576, have ${data.length}`);
    parts.push(data.subarray(192, 240), data.subarray(288, 320), data.subarray(352, 360), data.subarray(416, 512), data.subarray(544, 552));
  }
  return concatBytes(...parts);
}

function slotKey(n: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(n), 32);
}
