import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../../helpers/chains.js';
import { type EthTestServer, startEthServer } from '../../helpers/ethServer.js';
import { forEachTransport, type RpcClient } from '../../helpers/rpcClient.js';

/**
 * State overrides as geth applies them (ethereum/go-ethereum `internal/ethapi/override/override.go`
 * `StateOverride.Apply`), the same for eth_call and eth_simulateV1, on the execution-apis chain:
 * an overridden account comes into existence when the entry sets `nonce`, `balance`, `code`,
 * `state` (even empty) or a `stateDiff` slot, since each goes through `StateDB.SetNonce`/`SetCode`/
 * `SetBalance`/`SetStorage`/`SetState`, which create an absent account, kept although empty by the
 * `Finalise(params.Rules{})` that follows; an entry setting none of them (`{}`, an empty
 * `stateDiff`, a precompile's move alone) leaves its address absent.
 *
 * Existence shows in eth_call before EIP-158 (block 6 here), where a CALL to an absent account
 * costs `CallNewAccountGas` (25,000) more (geth `core/vm/gas_table.go` gasCall: `!Exist(address)`),
 * and in eth_simulateV1's state root, which holds the account or not.
 */
const X = '0x00000000000000000000000000000000000c0ffe';
const CALLER = '0x00000000000000000000000000000000000c0de0';
const SHA256 = '0x0000000000000000000000000000000000000002';
const ECRECOVER = '0x0000000000000000000000000000000000000001';
const SLOT = `0x${'0'.repeat(63)}1`;
const VALUE = `0x${'0'.repeat(62)}2a`;

/**
 * CALLER's code: the gas a `CALL(0xffff, X, 0, 0, 0, 0, 0)` costs, as a 32-byte word: GAS, five
 * PUSH1 0, PUSH20 X, PUSH2 0xffff, CALL, POP, GAS, SWAP1, SUB, MSTORE it at 0, RETURN 32 bytes.
 */
const measureCallTo = (target: string) => `0x5a${'6000'.repeat(5)}73${target.slice(2)}61fffff1505a900360005260206000f3`;
const MEASURE_CALL = measureCallTo(X);
/**
 * What the measured span costs at block 4 (Tangerine Whistle): five PUSH1, PUSH20 and PUSH2 at 3
 * each, CALL's 700 (the callee has no code and gives back all its gas), POP and GAS at 2 each.
 */
const CALL_TO_EXISTING = 15n + 3n + 3n + 700n + 2n + 2n;
const CALL_NEW_ACCOUNT_GAS = 25_000n;

let server: EthTestServer;
beforeAll(async () => {
  server = await startEthServer(join(FIXTURES, 'execution-apis'));
});
afterAll(async () => {
  await server?.close();
});

/** An override entry for X that leaves it absent, and one that creates it, by geth's Apply. */
const LEAVE_ABSENT: Record<string, Record<string, unknown>> = {
  'nothing set ({})': { [X]: {} },
  'an empty stateDiff': { [X]: { stateDiff: {} } },
};
const CREATE: Record<string, Record<string, unknown>> = {
  'nonce 0': { [X]: { nonce: '0x0' } },
  'balance 0': { [X]: { balance: '0x0' } },
  'empty code': { [X]: { code: '0x' } },
  'an empty state': { [X]: { state: {} } },
  'one stateDiff slot': { [X]: { stateDiff: { [SLOT]: VALUE } } },
};

forEachTransport(
  'state overrides: when an overridden account exists',
  () => server,
  (client: () => RpcClient) => {
    const callCost = async (overrides: Record<string, unknown>) => {
      const r = await client().call('eth_call', [{ to: CALLER, gas: '0x100000' }, '0x4', { [CALLER]: { code: MEASURE_CALL }, ...overrides }]);
      expect(r.error).toBeUndefined();
      return BigInt(r.result as string);
    };
    const stateRoot = async (overrides: Record<string, unknown>) => {
      const r = await client().call('eth_simulateV1', [{ blockStateCalls: [{ stateOverrides: overrides }] }, 'latest']);
      expect(r.error).toBeUndefined();
      return (r.result as Array<{ stateRoot: string }>)[0]!.stateRoot;
    };

    describe('eth_call before EIP-158: a CALL to X pays for a new account exactly when X is absent', () => {
      it('no override', async () => {
        expect(await callCost({})).toBe(CALL_TO_EXISTING + CALL_NEW_ACCOUNT_GAS);
      });
      for (const [name, overrides] of Object.entries(LEAVE_ABSENT)) {
        it(`${name}: X stays absent`, async () => {
          expect(await callCost(overrides)).toBe(CALL_TO_EXISTING + CALL_NEW_ACCOUNT_GAS);
        });
      }
      it("a precompile's move alone: its old address stays absent", async () => {
        const r = await client().call('eth_call', [
          { to: CALLER, gas: '0x100000' },
          '0x4',
          { [CALLER]: { code: measureCallTo(SHA256) }, [SHA256]: { movePrecompileToAddress: X } },
        ]);
        expect(BigInt(r.result as string)).toBe(CALL_TO_EXISTING + CALL_NEW_ACCOUNT_GAS);
      });
      for (const [name, overrides] of Object.entries(CREATE)) {
        it(`${name}: X exists`, async () => {
          expect(await callCost(overrides)).toBe(CALL_TO_EXISTING);
        });
      }
    });

    describe("eth_simulateV1: the block's state root holds X exactly when the override creates it", () => {
      it('an entry that sets nothing leaves the root as without it; one that sets a field adds X', async () => {
        const absent = await stateRoot({});
        for (const overrides of Object.values(LEAVE_ABSENT)) expect(await stateRoot(overrides)).toBe(absent);
        expect(await stateRoot({ [SHA256]: { movePrecompileToAddress: X } })).toBe(absent);
        const empty = await stateRoot({ [X]: { nonce: '0x0' } });
        expect(empty).not.toBe(absent);
        for (const name of ['balance 0', 'empty code', 'an empty state']) expect(await stateRoot(CREATE[name]!)).toBe(empty);
      });

      it('a stateDiff slot alone on an absent account creates it with that slot', async () => {
        const withSlot = await stateRoot(CREATE['one stateDiff slot']!);
        expect(withSlot).toBe(await stateRoot({ [X]: { nonce: '0x0', stateDiff: { [SLOT]: VALUE } } }));
        expect(withSlot).toBe(await stateRoot({ [X]: { state: { [SLOT]: VALUE } } }));
        expect(withSlot).not.toBe(await stateRoot({ [X]: { nonce: '0x0' } }));
      });
    });

    it('two precompiles moved to one address: geth walks the overrides in address order, so the higher one stays there', async () => {
      // given in reverse order: 0x02 (sha256) first, then 0x01 (ecrecover)
      const moves = { [SHA256]: { movePrecompileToAddress: X }, [ECRECOVER]: { movePrecompileToAddress: X } };
      const r = await client().call('eth_call', [{ to: X, input: '0x' }, 'latest', moves]);
      // sha256 of nothing; ecrecover would answer 0x
      expect(r.result).toBe('0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    });
  },
);
