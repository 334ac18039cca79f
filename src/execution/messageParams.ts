import type { Common } from '@ethereumjs/common';

/**
 * The transaction parameters of one fork that a message is checked and charged with, read once per
 * hardfork from @ethereumjs/common (the names of @ethereumjs/tx `paramsTx`, which the Common must
 * hold), so that a later fork's prices follow from its EIPs.
 */
export interface MessageParams {
  txGas: bigint;
  /** Added for a contract creation from Homestead (EIP-2); 0 before, as ethereumjs' tx does. */
  txCreationGas: bigint;
  txDataZeroGas: bigint;
  /** 68 until Istanbul, 16 from it (EIP-2028). */
  txDataNonZeroGas: bigint;
  /** EIP-3860 (Shanghai): per 32-byte word of initcode; 0 before. */
  initCodeWordGas: bigint;
  /** EIP-3860: the longest initcode; undefined before. */
  maxInitCodeSize: bigint | undefined;
  accessListAddressGas: bigint;
  accessListStorageKeyGas: bigint;
  /** EIP-7702: charged per authorization as intrinsic gas. */
  perEmptyAccountCost: bigint;
  /** EIP-7702: the part of {@link perEmptyAccountCost} kept when the authority already exists. */
  perAuthBaseGas: bigint;
  /** EIP-7623 (Prague): the calldata floor price per token; undefined before (no floor). */
  totalCostFloorPerToken: bigint | undefined;
  /** EIP-4844 (Cancun): blob gas per blob; 0 before. */
  blobGasPerBlob: bigint;
  /** EIP-7594 (Osaka): most blobs in one message; undefined before (no limit). */
  maxBlobsPerTx: number | undefined;
  /** EIP-7825 (Osaka): the protocol's per-transaction gas limit; undefined before. */
  maxTransactionGasLimit: bigint | undefined;
}

/**
 * Reads {@link MessageParams} from a Common set to its hardfork. Access lists and authorizations
 * are charged on every fork, as geth's IntrinsicGas does (it has no fork check for them): before
 * the fork that introduced them, at the price their EIP gave them.
 */
export function messageParams(common: Common): MessageParams {
  const since = (eip: number, name: string): bigint => {
    if (common.isActivatedEIP(eip)) return common.param(name);
    const value = common.paramByEIP(name, eip);
    if (value === undefined) throw new Error(`@ethereumjs/common has no ${name} for EIP-${eip}`);
    return value;
  };
  return {
    txGas: common.param('txGas'),
    txCreationGas: common.gteHardfork('homestead') ? common.param('txCreationGas') : 0n,
    txDataZeroGas: common.param('txDataZeroGas'),
    txDataNonZeroGas: common.param('txDataNonZeroGas'),
    initCodeWordGas: common.isActivatedEIP(3860) ? common.param('initCodeWordGas') : 0n,
    maxInitCodeSize: common.isActivatedEIP(3860) ? common.param('maxInitCodeSize') : undefined,
    accessListAddressGas: since(2930, 'accessListAddressGas'),
    accessListStorageKeyGas: since(2930, 'accessListStorageKeyGas'),
    perEmptyAccountCost: since(7702, 'perEmptyAccountCost'),
    perAuthBaseGas: since(7702, 'perAuthBaseGas'),
    totalCostFloorPerToken: common.isActivatedEIP(7623) ? common.param('totalCostFloorPerToken') : undefined,
    blobGasPerBlob: common.isActivatedEIP(4844) ? common.param('blobGasPerBlob') : 0n,
    maxBlobsPerTx: common.isActivatedEIP(7594) ? Number(common.param('maxBlobsPerTx')) : undefined,
    maxTransactionGasLimit: common.isActivatedEIP(7825) ? common.param('maxTransactionGasLimit') : undefined,
  };
}
