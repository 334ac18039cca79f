import { Common, Mainnet } from '@ethereumjs/common';
import { describe, expect, it } from 'vitest';
import { Forks } from './forks.js';
import { floorDataGas, intrinsicGas, type Message } from './message.js';

const forks = new Forks(new Common({ chain: Mainnet, hardfork: 'chainstart' }));
const params = (hardfork: string) => forks.get(hardfork).params;

const message = (fields: Partial<Message>): Message => ({
  from: new Uint8Array(20),
  to: new Uint8Array(20),
  gasLimit: 0n,
  gasPrice: 0n,
  feeCap: 0n,
  tipCap: 0n,
  value: 0n,
  data: new Uint8Array(),
  accessList: [],
  blobHashes: undefined,
  blobFeeCap: undefined,
  authorizations: undefined,
  ...fields,
});

describe('message parameters per fork', () => {
  // Expected values: geth's params/protocol_params.go (TxGas, TxGasContractCreation, TxDataZeroGas,
  // TxDataNonZeroGasFrontier/EIP2028, InitCodeWordGas, MaxInitCodeSize, TxAccessListAddressGas,
  // TxAccessListStorageKeyGas, CallNewAccountGas, TxAuthTupleGas, TxCostFloorPerToken,
  // BlobTxBlobGasPerBlob, BlobTxMaxBlobs (Osaka), MaxTxGas).
  it.each([
    ['chainstart', { txGas: 21_000n, txCreationGas: 0n, txDataNonZeroGas: 68n, initCodeWordGas: 0n, totalCostFloorPerToken: undefined, blobGasPerBlob: 0n }],
    ['homestead', { txCreationGas: 32_000n, txDataNonZeroGas: 68n }],
    ['istanbul', { txDataNonZeroGas: 16n, txDataZeroGas: 4n }],
    ['berlin', { accessListAddressGas: 2_400n, accessListStorageKeyGas: 1_900n }],
    ['shanghai', { initCodeWordGas: 2n, maxInitCodeSize: 49_152n }],
    ['cancun', { blobGasPerBlob: 131_072n, maxBlobsPerTx: undefined, maxTransactionGasLimit: undefined }],
    ['prague', { totalCostFloorPerToken: 10n, perEmptyAccountCost: 25_000n, perAuthBaseGas: 12_500n }],
    ['osaka', { maxBlobsPerTx: 6, maxTransactionGasLimit: 16_777_216n }],
  ])('%s', (hardfork, expected) => {
    expect(params(hardfork)).toMatchObject(expected);
  });

  it('access lists and authorizations are priced before their forks too (geth IntrinsicGas has no fork check)', () => {
    expect(params('chainstart')).toMatchObject({ accessListAddressGas: 2_400n, accessListStorageKeyGas: 1_900n, perEmptyAccountCost: 25_000n });
  });
});

describe('intrinsicGas', () => {
  const data = Uint8Array.of(0, 1, 2);
  it('Frontier: no creation charge, 68 per non-zero byte', () => {
    expect(intrinsicGas(params('chainstart'), message({ to: undefined, data }), true)).toBe(21_000n + 2n * 68n + 4n);
  });
  it('Homestead: a creation costs 53,000', () => {
    expect(intrinsicGas(params('homestead'), message({ to: undefined, data }), true)).toBe(53_000n + 2n * 68n + 4n);
  });
  it('Shanghai: initcode words (EIP-3860) and 16 per non-zero byte', () => {
    const initcode = new Uint8Array(33).fill(1);
    expect(intrinsicGas(params('shanghai'), message({ to: undefined, data: initcode }), true)).toBe(53_000n + 33n * 16n + 2n * 2n);
  });
  it('Berlin: access list addresses and keys', () => {
    const accessList = [
      { address: new Uint8Array(20), storageKeys: [new Uint8Array(32)] },
      { address: new Uint8Array(20), storageKeys: [] },
    ];
    expect(intrinsicGas(params('berlin'), message({ accessList }), false)).toBe(21_000n + 2n * 2_400n + 1_900n);
  });
  it('Prague: 25,000 per authorization', () => {
    const auth = { chainId: 1n, address: new Uint8Array(20), nonce: 0n, yParity: 0n, r: 1n, s: 1n };
    expect(intrinsicGas(params('prague'), message({ authorizations: [auth, auth] }), false)).toBe(71_000n);
  });
});

describe('floorDataGas (EIP-7623)', () => {
  it('Prague: 21,000 + 10 per token, a non-zero byte 4 tokens', () => {
    expect(floorDataGas(params('prague'), Uint8Array.of(0, 1))).toBe(21_000n + 5n * 10n);
  });
  it('before Prague: no floor', () => {
    expect(floorDataGas(params('cancun'), Uint8Array.of(0, 1))).toBe(0n);
  });
});
