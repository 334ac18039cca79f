import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FIXTURES } from '../../helpers/chains.js';
import { type EthTestServer, startEthServer } from '../../helpers/ethServer.js';
import { forEachTransport, type RpcClient } from '../../helpers/rpcClient.js';

/**
 * eth_simulateV1's refusals that the execution-apis fixtures do not record, on their chain: each
 * is geth's code (ethereum/go-ethereum `internal/ethapi/errors.go`, txValidationError and the
 * simulator's own) with geth's text (`core/error.go`, wrapped as `err: … (supplied gas N)`).
 */
const S = '0xc000000000000000000000000000000000000000';
const S_CHECKSUM = '0xC000000000000000000000000000000000000000';
const X = '0xc100000000000000000000000000000000000000';
const RICH = '0xffffffffffffffffffffffff';

let server: EthTestServer;
beforeAll(async () => {
  server = await startEthServer(join(FIXTURES, 'execution-apis'));
});
afterAll(async () => {
  await server?.close();
});

/** One block with one call from S (funded, nonce as given) to X. */
function request(call: Record<string, unknown>, opts: Record<string, unknown> = {}, nonce = '0x0') {
  return [{ blockStateCalls: [{ stateOverrides: { [S]: { balance: RICH, nonce } }, calls: [{ from: S, to: X, ...call }] }], ...opts }, 'latest'];
}

const CASES: Array<[string, unknown[], { code: number; message: string }]> = [
  [
    'nonce too low (-38010)',
    request({ nonce: '0x1' }, { validation: true }, '0x5'),
    { code: -38010, message: `err: nonce too low: address ${S_CHECKSUM}, tx: 1 state: 5 (supplied gas 50000000)` },
  ],
  [
    'nonce too high (-38011)',
    request({ nonce: '0x9', maxFeePerGas: '0x3b9aca00' }, { validation: true }),
    { code: -38011, message: `err: nonce too high: address ${S_CHECKSUM}, tx: 9 state: 0 (supplied gas 50000000)` },
  ],
  [
    'a call over what is left of the block gas limit (-38015)',
    [{ blockStateCalls: [{ blockOverrides: { gasLimit: '0x5208' }, calls: [{ from: S, to: X, gas: '0x10000' }] }] }, 'latest'],
    { code: -38015, message: 'block gas limit reached: remaining: 21000, required: 65536' },
  ],
  [
    'init code over the limit (-38025)',
    request({ to: null, input: `0x${'00'.repeat(49153)}` }),
    { code: -38025, message: 'err: max initcode size exceeded: code size 49153 limit 49152 (supplied gas 50000000)' },
  ],
  [
    'a tip above the fee cap (-32602)',
    request({ maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x2' }),
    {
      code: -32602,
      message: `err: max priority fee per gas higher than max fee per gas: address ${S_CHECKSUM}, maxPriorityFeePerGas: 2, maxFeePerGas: 1 (supplied gas 50000000)`,
    },
  ],
  [
    'any other invalid message: a nonce at its maximum (-32603)',
    request({ nonce: '0xffffffffffffffff' }, { validation: true }, '0xffffffffffffffff'),
    { code: -32603, message: `err: nonce has max value: address ${S_CHECKSUM}, nonce: 18446744073709551615 (supplied gas 50000000)` },
  ],
];

forEachTransport(
  'eth_simulateV1 refusals',
  () => server,
  (client: () => RpcClient) => {
    for (const [name, params, error] of CASES) {
      it(name, async () => {
        const r = await client().call('eth_simulateV1', params);
        expect(r.error).toEqual(error);
      });
    }
  },
);
