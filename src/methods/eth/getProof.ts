import { KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util';
import { z } from 'zod';
import { BlockNumberOrHash } from '../../codec/blockId.js';
import { bigIntToQuantity, bytesToData } from '../../codec/hex.js';
import { Address, RawString } from '../../codec/schemas.js';
import { InvalidParamsError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { STATE } from '../raises.js';
import { resolveBlock } from './_shared/resolveBlock.js';
import { storageKeyOrThrow } from './_shared/storageKey.js';

const ZERO_HASH = bytesToData(new Uint8Array(32));

/**
 * `eth_getProof(address, storageKeys, block?)`: EIP-1186 account and storage proofs against the
 * block's stateRoot. Proof nodes are root first. An absent account gets balance and nonce `0x0`,
 * an exclusion proof, and zero codeHash/storageHash as geth returns them (docs/methods.md#eth_getproof); an
 * account without storage answers each key with value `0x0` and an empty proof. Keys are echoed as
 * geth echoes them: unchanged when given as 32 bytes, otherwise as a quantity.
 * https://eips.ethereum.org/EIPS/eip-1186
 */
export const getProof = defineMethod({
  name: 'eth_getProof',
  raises: STATE,
  params: [Address, z.array(RawString), BlockNumberOrHash],
  required: 2,
  handler: async (ctx: EthContext, [address, keys, block], req) => {
    // `rpc.getProofMaxKeys`: geth's limit (go-ethereum PR #34617).
    const maxKeys = ctx.limits.getProofMaxKeys;
    if (keys.length > maxKeys) throw new InvalidParamsError(`too many storage keys requested (max ${maxKeys}, got ${keys.length})`);
    const decoded = keys.map(storageKeyOrThrow);
    const header = await resolveBlock(ctx, block, req);
    const proof = await ctx.state.proof(
      header.stateRoot,
      address,
      decoded.map((k) => k.slot),
    );
    const account = proof.account;
    return {
      address: bytesToData(address),
      accountProof: proof.accountProof.map(bytesToData),
      balance: bigIntToQuantity(account?.balance ?? 0n),
      codeHash: account ? bytesToData(account.codeHash ?? KECCAK256_NULL) : ZERO_HASH,
      nonce: bigIntToQuantity(account?.nonce ?? 0n),
      storageHash: account ? bytesToData(account.storageRoot ?? KECCAK256_RLP) : ZERO_HASH,
      storageProof: proof.storageProof.map((p, i) => ({
        key: decoded[i].exact32 ? bytesToData(decoded[i].slot) : bigIntToQuantity(BigInt(bytesToData(decoded[i].slot))),
        value: bigIntToQuantity(p.value),
        proof: p.proof.map(bytesToData),
      })),
    };
  },
});
