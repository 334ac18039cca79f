/**
 * Values of the bundled demo chain (fixtures/demo, documented in fixtures/demo/README.md and generated
 * by scripts/genDemo.ts) shared by the real-client tests, and the ABIs of its contracts, written from
 * scripts/demo/*.sol. Every expected value here comes from the generator's record, not from tracenode.
 */
import { join } from 'node:path';
import { encodeErrorResult, parseAbi } from 'viem';
import { FIXTURES } from '../helpers/chains.js';
import type { EthTestServer } from '../helpers/ethServer.js';

export type Hex = `0x${string}`;

export const DEMO_DIR = join(FIXTURES, 'demo');

/** The Infura-style endpoints of a test server. */
export const httpUrl = (s: EthTestServer) => `${s.url}/v3/${s.key}`;
export const wsUrl = (s: EthTestServer) => `${s.url.replace(/^http/, 'ws')}/ws/v3/${s.key}`;

export const CHAIN_ID = 271828;
export const HEAD = 64;

export const ALICE = '0x0bffd7cc70e8543fae33a3695182b4ecab0386ea';
export const BOB = '0x9404370e91e71b42e68eca0f7489f7b623d9ea98';
export const CAROL = '0x56db0f455d906c1db8b9c8db6d48c814e1521461';
export const DAVE = '0x46bb5947bb524bf82f3865cab68e7cab4889f3be';
export const MINER = '0x87003bcb29614fe6b630a515f662a1e530bfddfd';
export const UNCLE_MINER_1 = '0x84c15fd9eafbcbb20b8d169f6618125b8e805c21';
export const UNCLE_MINER_3 = '0x53d2e7694557d81661c1cb1c087a47ef4f8f759b';
export const FEE_RECIPIENT_A = '0xabd4028b98277b77b78fd459cd1c735e49280315';
export const WITHDRAWAL_1 = '0x50eb0cc25f5e52a994b151054327f0e829c738f8';
export const WITHDRAWAL_2 = '0x30261a4e9eeade27fb9260d12440829089231cd2';
export const RARE_1 = '0xf36998486188d345c7ebc7a132fda278bbea42dc';

export const STATEBOX = '0x000000000000000000000000000000000000beef';
export const TOKEN = '0xeea13157ec6225f61188ad9fdeb0f44c0852f4f4';
export const PROBE = '0x42b2d31234c8f2d93aef32beca3e30797d07d5a7';
export const THROWER = '0x4cd24135a2bb15b7cf28807d0afcedc3bd17bc81';
export const BLOB_PROBE = '0xb7ac01fbbfa0d2f2e497e3e3dd50f843eafa3044';

export const BLOCK = {
  0: '0x2e5be9364557bd0d08d8b770a129a4945e286c548e5c508c33e491d8fb6076a1',
  9: '0xe3ec666d46671353aafbdbf7a8723ca0c1163630d4856e97f3d04252488155c0',
  10: '0x3d09694ad55179e2d2c3f58914087d66b1763b6668e3ceaae42fc86eb47d6a69',
  11: '0xe50b2a42286d684fe02a6a82e68371dbf913990dbe3ff103187f2e358cbccaf3',
  15: '0xdd58fabdcd6ecb21e48357c512750ece5b9d6dcbb1379bd98b447e4e12d40bf8',
  19: '0x7910cf4653b71a9aedd692858673d63d69f7a6b64e40ac7306e4f941ae1a714e',
  20: '0x80a62a83302db44e11c7a0ecdd751e9c324d600951a6aa7408c39267fe4341ef',
  23: '0xa2ef221e4b2f7e7c688e56a4891eb85a49eab2ef1fd8b8d73336860530e8369f',
  28: '0x0489a7d0df3d1fd675f4c2323489c6ddfb144240fc44776f024a4b80c688af91',
  29: '0x371a0d13a8bf46151b867f5968d31bb2a06bddf7d4957cae1a4222508f2385aa',
  30: '0xa491410e5464c17a25ac60de353aaecb13f30dff0d02f79ca6afb6d79a4a6eee',
  64: '0x116422806e3fb0b0b75c7af58e415dc8030cca91e34f02d5d764f67471ba129d',
} as const;

/** Uncles of block 11: distance 1 (uncle-miner-1) and distance 2 (uncle-miner-3). */
export const UNCLES_11 = [
  '0xb597f2e02144b609b17d1881034fd035933a8990a966ae8ca8907313f091ae5e',
  '0xc71ebe23438d05f36a8f9312f249291ed500c573322ef17b48b276b9a6a49814',
] as const;

export const TX = {
  /** block 1 idx 1: bob → carol, legacy with a pre-EIP-155 signature (v = 27/28). */
  preEip155: '0xe39649498586899590bd71dc2ac3989cbd9cd22c1499086f7e4e798ffaf9a34f',
  /** block 3 idx 2: carol → rare-1, 1 ETH. */
  carolToRare1: '0x553e0c6cb55887829f8c580252fde7f73a0921a21156639a00d65f4b2791babc',
  /** block 6 idx 0: StateBox.setCounter(10), EIP-2930 with an access list. */
  accessList: '0xa25ea8e25920f2d1af92e0bb9ed1220e2959c114e62a1e8dc171982e17786169',
  /** block 8 idx 0: deploys DemoToken (EIP-1559 CREATE). */
  deployToken: '0xf1b0d3f2dc04a9b7034cc4f186883f2d174c84763ed809609f77c5275d6e1a6a',
  /** block 9 idx 3: DemoToken.transfer(bob, 1000 TDT) by alice. */
  tokenTransfer: '0xe9891d528a8992047b851c459f8e79d7d3e59357db1eccf98cd62c79393e4c86',
  /** block 14 idx 1: DemoToken.transferFrom beyond the allowance, mined but failed (Error(string)). */
  failedReason: '0x97387d9b672033022a457164c74a82f3f5fc34ed67e8b1809b86251241ac87a6',
  /** block 20 idx 0: alice → bob, EIP-1559, first PoS block. */
  firstPos: '0xecb03bf9fb2c2cd71d4667cc827d9d8dab828d01658a22e2de5c079f04171ea9',
  /** block 28 idx 0: type-3 blob tx, BlobProbe.record("blob tx"). */
  blob: '0x74007473ebd79e66f5cde25b9711c50443efc941a41d43b2f3653e64c7c8cb41',
} as const;

export const BLOB_VERSIONED_HASH = '0x01b38978e242d251e76fd62d3aa52a124dff84c5479611f184c1edf19f6949b5';

export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** StateBox storage slots and their histories ([from block, value]). */
export const SLOT0 = '0x0000000000000000000000000000000000000000000000000000000000000000';
export const GRID_ALICE_7 = '0x6c53d09ec72a14af2d67be44dfe9e26616647f5874ba90fc549069c0bbbb71e8';
export const COUNTER_HISTORY: Array<[number, bigint]> = [
  [0, 1n],
  [1, 2n],
  [4, 3n],
  [6, 10n],
  [15, 11n],
  [20, 20n],
  [23, 21n],
  [29, 29n],
  [36, 30n],
  [38, 31n],
  [50, 50n],
  [64, 64n],
];
export const GRID_ALICE_7_HISTORY: Array<[number, bigint]> = [
  [0, 42n],
  [3, 43n],
  [19, 44n],
  [42, 45n],
];

const TDT = 10n ** 18n;
export const ETH = 10n ** 18n;
/** DemoToken.balanceOf histories (README "Storage slots worth reading"). */
export const TDT_ALICE_HISTORY: Array<[number, bigint]> = [
  [8, 1_000_000n * TDT],
  [9, 999_000n * TDT],
  [10, 998_900n * TDT],
  [18, 998_895n * TDT],
  [42, 998_495n * TDT],
  [48, 998_496n * TDT],
  [56, 998_454n * TDT],
];
export const TDT_BOB_HISTORY: Array<[number, bigint]> = [
  [8, 0n],
  [9, 1000n * TDT],
  [10, 750n * TDT],
  [21, 700n * TDT],
  [24, 701n * TDT],
  [30, 691n * TDT],
  [56, 733n * TDT],
  [64, 726n * TDT],
];
export const valueAt = (changes: Array<[number, bigint]>, block: number) => changes.filter(([b]) => b <= block).at(-1)?.[1] ?? 0n;

/** The DemoToken Transfer logs of blocks 8–10, in order: [block, txIndex, from, to, value]. */
export const TRANSFERS_8_TO_10: Array<[number, number, Hex, Hex, bigint]> = [
  [8, 0, '0x0000000000000000000000000000000000000000', ALICE, 1_000_000n * TDT], // mint in the constructor
  [9, 3, ALICE, BOB, 1000n * TDT],
  [10, 0, BOB, CAROL, 250n * TDT],
  [10, 2, ALICE, DAVE, 100n * TDT], // transferFrom by carol
];

export const REASON = 'Thrower: failed with a reason string';
export const ALLOWANCE_REASON = 'DemoToken: insufficient allowance';

/** Human-readable ABIs (accepted by both viem's parseAbi and ethers' Interface). */
export const TOKEN_ABI = [
  'function balanceOf(address) view returns (uint256)',
  'function totalSupply() view returns (uint256)',
  'function symbol() view returns (string)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function transferFrom(address from, address to, uint256 value) returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
  'error InsufficientBalance(address account, uint256 balance, uint256 needed)',
] as const;

export const THROWER_ABI = [
  'function failWithReason()',
  'function failWithCustomError()',
  'function failWithPanic(uint256 divisor) returns (uint256)',
  'error Unauthorized(address caller, uint256 code)',
] as const;

export const STATEBOX_ABI = ['function counter() view returns (uint256)', 'function grid(address, uint256) view returns (uint256)'] as const;

export const PROBE_ABI = [
  'function env() view returns (uint256 number, bytes32 parentHash, uint256 timestamp, address coinbase, uint256 difficultyOrPrevRandao, uint256 gasLimit, uint256 baseFee, uint256 chainId, uint256 selfBalance, address origin, uint256 gasPrice)',
] as const;

/** Raw revert data, ABI-encoded here: Error(REASON), Unauthorized(caller, 42), Panic(0x12). */
export const REASON_DATA = encodeErrorResult({ abi: parseAbi(['error Error(string)']), errorName: 'Error', args: [REASON] });
export const unauthorizedData = (caller: Hex) => encodeErrorResult({ abi: parseAbi(THROWER_ABI), errorName: 'Unauthorized', args: [caller, 42n] });
export const PANIC_DIV_ZERO_DATA = encodeErrorResult({ abi: parseAbi(['error Panic(uint256)']), errorName: 'Panic', args: [0x12n] });

/** 32-byte big-endian word of a value. */
export const word = (v: bigint) => `0x${v.toString(16).padStart(64, '0')}`;
