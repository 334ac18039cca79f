import { createBlockHeader } from '@ethereumjs/block';
import { ConsensusType } from '@ethereumjs/common';
import { bytesToHex, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { genesisForkConfig } from '../chain/forkSchedule.js';
import { createChainCommon } from '../chain/genesis.js';
import { adoptNodeGenesis } from './nodeGenesis.js';

/** A geth genesis of `config` with the header fields @ethereumjs insists on. */
const gethGenesis = (config: ReturnType<typeof genesisForkConfig>) => ({
  config,
  alloc: {},
  difficulty: '0x0',
  gasLimit: '0x1c9c380',
  nonce: '0x0',
  timestamp: '0x0',
  extraData: '0x',
});
const common = await createChainCommon(gethGenesis(genesisForkConfig(31337, 'prague')));
const STATE = new Uint8Array(32).fill(0xab);
/** A genesis header with `fields` changed: ours has the state root STATE and the empty trie's list roots. */
const header = (fields: Record<string, unknown> = {}) =>
  createBlockHeader({ number: 0n, gasLimit: 30_000_000n, baseFeePerGas: 1_000_000_000n, stateRoot: STATE, ...fields }, { common });
const ours = header();

describe("adopting a development node's block 0 (init --from-node)", () => {
  it('the same header: taken, no alias', () => {
    expect(adoptNodeGenesis(ours, header(), STATE, STATE, 'strict')).toEqual({});
  });

  it('Hardhat\'s keccak256("") as an empty list\'s root: taken in either mode; another root is refused', () => {
    expect(adoptNodeGenesis(ours, header({ transactionsTrie: KECCAK256_NULL }), STATE, STATE, 'strict')).toEqual({});
    expect(adoptNodeGenesis(ours, header({ receiptTrie: KECCAK256_NULL, withdrawalsRoot: KECCAK256_NULL }), STATE, STATE, 'strict')).toEqual({});
    const other = new Uint8Array(32).fill(1);
    expect(() => adoptNodeGenesis(ours, header({ transactionsTrie: other }), STATE, STATE, 'lenient')).toThrow(
      `the node's block 0 has transactionsTrie ${bytesToHex(other)}, its genesis fields and accounts give ${bytesToHex(KECCAK256_RLP)}`,
    );
  });

  it('any other field that differs is refused, naming it', () => {
    expect(() => adoptNodeGenesis(ours, header({ gasLimit: 60_000_000n }), STATE, STATE, 'lenient')).toThrow(
      "the node's block 0 has gasLimit 0x3938700, its genesis fields and accounts give 0x1c9c380",
    );
  });

  it("anvil's empty-trie state root: an alias under lenient checks, refused under strict ones", () => {
    const anvil = header({ stateRoot: KECCAK256_RLP });
    expect(adoptNodeGenesis(ours, anvil, STATE, STATE, 'lenient')).toEqual({ alias: { headerRoot: KECCAK256_RLP, trieRoot: STATE } });
    expect(() => adoptNodeGenesis(ours, anvil, STATE, STATE, 'strict')).toThrow('accepted only under lenient header checks (import.headerChecks)');
    // Any other state root than the computed one is refused.
    expect(() => adoptNodeGenesis(ours, header({ stateRoot: new Uint8Array(32).fill(2) }), STATE, STATE, 'lenient')).toThrow(
      `the node's block 0 names state root 0x${'02'.repeat(32)}, the state it holds has root ${bytesToHex(STATE)}`,
    );
  });

  it('the state the node holds (its proofs) must be the one its listed accounts give', () => {
    expect(() => adoptNodeGenesis(ours, header(), STATE, new Uint8Array(32).fill(3), 'lenient')).toThrow(
      `the node's genesis state has root 0x${'03'.repeat(32)} (its account proofs at block 0), the accounts it lists give ${bytesToHex(STATE)}`,
    );
  });
});

describe('fork schedules from genesis', () => {
  it('each fork, and every one before it, at block 0', async () => {
    const at = async (fork: Parameters<typeof genesisForkConfig>[1]) => (await createChainCommon(gethGenesis(genesisForkConfig(1337, fork)))).hardfork();
    expect(await at('osaka')).toBe('osaka');
    expect(await at('prague')).toBe('prague');
    expect(await at('cancun')).toBe('cancun');
    expect(await at('shanghai')).toBe('shanghai');
    // Merged from the genesis (terminal total difficulty 0), as geth reads it: proof of stake.
    const merge = await createChainCommon(gethGenesis(genesisForkConfig(1337, 'merge')));
    expect([merge.gteHardfork('paris'), merge.consensusType()]).toEqual([true, ConsensusType.ProofOfStake]);
    const london = await createChainCommon(gethGenesis(genesisForkConfig(1337, 'london')));
    expect([london.hardfork(), london.consensusType()]).toEqual(['grayGlacier', ConsensusType.ProofOfWork]); // London and its two difficulty-bomb delays
  });

  it("the node's own blob parameters replace its fork's; the deposit contract is the node's", () => {
    const config = genesisForkConfig(31337, 'osaka', {
      blobs: { target: 1, max: 2, baseFeeUpdateFraction: 3 },
      depositContractAddress: '0x00000000219ab540356cbb839cbe05303d7705fa',
    });
    expect(config.blobSchedule).toEqual({
      cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
      prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      osaka: { target: 1, max: 2, baseFeeUpdateFraction: 3 },
    });
    expect(config).toMatchObject({
      chainId: 31337,
      terminalTotalDifficulty: 0,
      shanghaiTime: 0,
      osakaTime: 0,
      depositContractAddress: '0x00000000219ab540356cbb839cbe05303d7705fa',
    });
  });
});
