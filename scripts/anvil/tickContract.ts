import { parseAbi, parseAbiItem, toEventSelector } from 'viem';

/**
 * A contract that emits `Tick(uint256 indexed id, uint256 value)` with the (id, value) of its
 * calldata, for tests and benchmarks that need a log in a block: deploy {@link TICK_INITCODE},
 * then call it with `abi.encode(id, value)`.
 */

export const TICK_ABI = parseAbi(['event Tick(uint256 indexed id, uint256 value)']);
export const TICK_TOPIC = toEventSelector(parseAbiItem('event Tick(uint256 indexed id, uint256 value)'));
/** Runtime: value = calldata[32:64] → memory[0:32]; LOG2(memory[0:32], TICK_TOPIC, calldata[0:32]); STOP. */
export const TICK_RUNTIME = `6020356000526000357f${TICK_TOPIC.slice(2)}60206000a200`;
/** Copies the 48-byte runtime to memory and returns it. */
export const TICK_INITCODE = `0x6030600c60003960306000f3${TICK_RUNTIME}` as const;
