import { bytesToData } from '../../codec/hex.js';
import { keccak256 } from '../../codec/keccak.js';
import { Data } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';

/** `web3_sha3(data)`: the Keccak-256 of the bytes (not SHA3-256), as geth's `Web3API.Sha3`. */
export const sha3 = defineMethod({
  name: 'web3_sha3',
  raises: NONE,
  params: [Data],
  handler: (_ctx: EthContext, [data]) => bytesToData(keccak256(data)),
});
