import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, bytesToHex, hexToBytes, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util';
import { type BlobParams, type GenesisFork, genesisForkConfig } from '../chain/forkSchedule.js';
import { createChainCommon, type GethGenesis } from '../chain/genesis.js';
import { type OpGenesisUpgrade, opGenesisConfigUpTo } from '../chain/op/rollup.js';
import { keccak256 } from '../codec/keccak.js';
import type { NodeGenesis } from '../import/init.js';
import { blockFromRpc } from './blockFromRpc.js';
import { type Call, type Upstream, UpstreamError, UpstreamRpcError } from './upstream.js';

/**
 * The genesis of a running development node (anvil, Hardhat), read over JSON-RPC for
 * `tracenode init --from-node URL`: such a node has no genesis file to give.
 *
 * - Block 0: `eth_getBlockByNumber(0)`, rebuilt to the node's hash (`blockFromRpc.ts`).
 * - The chain id: `eth_chainId`.
 * - The forks, all active from block 0 up to the node's: from EIP-7910 `eth_config` when the node
 *   serves it (anvil: its precompiles and system contracts name the fork, with its blob parameters
 *   and deposit contract), else from the fields block 0 has (baseFeePerGas → London,
 *   withdrawalsRoot → Shanghai, the blob fields and parentBeaconBlockRoot → Cancun, requestsHash →
 *   Prague; a difficulty above 0 → London before the merge), and Osaka over Prague when the
 *   P256VERIFY precompile (0x…0100) verifies a signature in an `eth_call` at block 0 (Hardhat has
 *   no eth_config; `eth_getCode` cannot tell, a precompile has no code).
 * - The allocation: the accounts the node lists (`eth_accounts`), the system contracts
 *   (EIP-4788, 2935, 7002, 7251, and those eth_config names), the precompiles, block 0's coinbase
 *   and Arachnid's CREATE2 deployer (anvil deploys it), each as `eth_getProof` shows it at block 0
 *   (balance, nonce, code hash, storage root; code from `eth_getCode`, checked against its hash).
 *   An account with storage is refused: JSON-RPC cannot list storage. On an OP-stack node
 *   (`opUpgrade`) also the predeploys its fees read and credit: L1Block with its slots 0–8 (the L1
 *   attributes, which must then be all of its storage: their trie's root is its storage root) and
 *   the fee vaults.
 * - The root of the state the node holds: the root node of those proofs, hashed. The init checks
 *   the allocation against it, so a node holding an account not probed here is refused.
 */

/** What the node said, for init's report. */
export interface NodeGenesisInfo {
  fork: GenesisFork;
  /** Where the fork came from. */
  forkSource: 'eth_config' | 'block 0 fields' | 'block 0 fields and P256VERIFY';
  /** Accounts in the allocation. */
  accounts: number;
}

/** EIP-4788 beacon roots, EIP-2935 block history, EIP-7002 withdrawals, EIP-7251 consolidations. */
const SYSTEM_CONTRACTS = [
  '0x000f3df6d732807ef1319fb7b8bb8522d0beac02',
  '0x0000f90827f1c53a10cb7a02335b175320002935',
  '0x00000961ef480eb55e80d19ad83579a64c007002',
  '0x0000bbddc7ce488642fb579f8b00f3a590007251',
];
/** OP-stack predeploys: L1Block, whose slots 0–8 hold the L1 attributes the fees read, and the fee vaults. */
const L1_BLOCK = '0x4200000000000000000000000000000000000015';
const L1_BLOCK_READ_SLOTS = Array.from({ length: 9 }, (_, i) => BigInt(i));
const OP_VAULTS = ['0x4200000000000000000000000000000000000019', '0x420000000000000000000000000000000000001a', '0x420000000000000000000000000000000000001b'];
/** Arachnid's deterministic-deployment proxy, which anvil deploys at genesis. */
const CREATE2_DEPLOYER = '0x4e59b44847b379578588920ca78fbf26c0b4956c';
/** The precompiles through Osaka: 0x01–0x11 and P256VERIFY. */
const PRECOMPILES = [...Array.from({ length: 0x11 }, (_, i) => i + 1), 0x100].map((n) => `0x${n.toString(16).padStart(40, '0')}`);
const P256VERIFY = PRECOMPILES[PRECOMPILES.length - 1];
/** A valid P256VERIFY input (EIP-7951): sha256("tracenode"), r, s, and the public key of private key 7. */
const P256_INPUT =
  '0x91291d29918dccc1a8343c12ba3711d93f9528ee442cf8aeab514f8262bc63c03cbabd1905bd199c685f44661183a30b0890a228c94a247f277642b56fe7904843c839e9f45434c48d0520ee946ec3abc7abd9069d2ec0a1d16c463fb40e86028e533b6fa0bf7b4625bb30667c01fb607ef9f8b8a80fef5b300628703187b2a373eb1dbde03318366d069f83a6f5900053c73633cb041b21c55e1a86c1f400b4';
const P256_VALID = `0x${'00'.repeat(31)}01`;

/** The genesis header fields a geth genesis carries (`eth_getBlockByNumber` names → genesis names). */
const HEADER_FIELDS: ReadonlyArray<[string, string]> = [
  ['nonce', 'nonce'],
  ['timestamp', 'timestamp'],
  ['extraData', 'extraData'],
  ['gasLimit', 'gasLimit'],
  ['difficulty', 'difficulty'],
  ['mixHash', 'mixHash'],
  ['miner', 'coinbase'],
  ['baseFeePerGas', 'baseFeePerGas'],
  ['gasUsed', 'gasUsed'],
  ['parentHash', 'parentHash'],
  ['excessBlobGas', 'excessBlobGas'],
  ['blobGasUsed', 'blobGasUsed'],
];

type Json = Record<string, unknown>;

/** Reads the node's genesis; throws an Error saying what the node lacks or what does not add up. */
export async function readNodeGenesis(upstream: Upstream, opUpgrade?: OpGenesisUpgrade): Promise<NodeGenesis & { info: NodeGenesisInfo }> {
  const { genesis: rules, block0, ethConfig, info } = await readNodeRules(upstream, opUpgrade);
  const addresses = [
    ...new Set([
      ...info.listed,
      ...SYSTEM_CONTRACTS,
      ...(ethConfig?.systemContracts ?? []),
      ...PRECOMPILES,
      CREATE2_DEPLOYER,
      hex(block0.miner, 'miner').toLowerCase(),
    ]),
  ];
  // An OP-stack node: the predeploys its fees read and credit, L1Block with the slots op-geth reads
  // (a genesis file would list them; anvil's OP mode has none until they are set).
  const slots: Record<string, bigint[]> = opUpgrade ? { [L1_BLOCK]: L1_BLOCK_READ_SLOTS } : {};
  if (opUpgrade) addresses.push(L1_BLOCK, ...OP_VAULTS);
  const { alloc, proofRoot } = await readAllocation(upstream, addresses, slots);
  const genesis: GethGenesis = { ...rules, alloc };
  const common = await createChainCommon(genesis);
  let block: NodeGenesis['block'];
  try {
    block = blockFromRpc(block0, [], common);
  } catch (err) {
    throw new UpstreamError(`the node's block 0: ${(err as Error).message}`);
  }
  return { genesis, common, block, proofRoot, info: { fork: info.fork, forkSource: info.forkSource, accounts: Object.keys(alloc).length } };
}

/**
 * The rules of a development node's chain without its allocation, for an archive that starts at
 * block N of it (`anchor.ts`): a geth genesis with the node's chain id, the fork schedule found as
 * {@link readNodeGenesis} finds it, block 0's header fields and no `alloc`.
 */
export async function readNodeChainConfig(
  upstream: Upstream,
  opUpgrade?: OpGenesisUpgrade,
): Promise<{ genesis: GethGenesis; info: Pick<NodeGenesisInfo, 'fork' | 'forkSource'> }> {
  const { genesis, info } = await readNodeRules(upstream, opUpgrade);
  return { genesis, info: { fork: info.fork, forkSource: info.forkSource } };
}

/**
 * The node's chain id, fork and block 0 (with `eth_config` and the accounts it lists, for the
 * allocation). `opUpgrade`: the node is an OP-stack chain running every upgrade up to that one
 * from genesis — its JSON-RPC does not say so (anvil's OP mode answers eth_config as Prague) —,
 * written into the config as an op-geth genesis has it (`chain/op/rollup.ts`).
 */
async function readNodeRules(
  upstream: Upstream,
  opUpgrade?: OpGenesisUpgrade,
): Promise<{
  genesis: GethGenesis;
  block0: Json;
  ethConfig: EthConfig | undefined;
  info: Pick<NodeGenesisInfo, 'fork' | 'forkSource'> & { listed: string[] };
}> {
  const [chainIdHex, block0, accounts] = await upstream.batch([
    { method: 'eth_chainId', params: [] },
    { method: 'eth_getBlockByNumber', params: ['0x0', true] },
    { method: 'eth_accounts', params: [] },
  ]);
  if (!isObject(block0)) throw new UpstreamError('the node has no block 0');
  const chainId = Number(BigInt(hex(chainIdHex, 'eth_chainId')));
  const ethConfig = await readEthConfig(upstream, chainId);
  const { fork, forkSource } = await findFork(upstream, block0, ethConfig);
  const listed = Array.isArray(accounts) ? accounts.map((a) => hex(a, 'eth_accounts entry').toLowerCase()) : [];
  const genesis: GethGenesis = {
    config: {
      ...genesisForkConfig(chainId, fork, { blobs: ethConfig?.blobs, depositContractAddress: ethConfig?.depositContract }),
      ...(opUpgrade ? opGenesisConfigUpTo(opUpgrade) : {}),
    },
    ...headerFields(block0),
    number: '0x0',
    alloc: {},
  };
  return { genesis, block0, ethConfig, info: { fork, forkSource, listed } };
}

/** What EIP-7910 `eth_config` says of the current fork. */
interface EthConfig {
  fork: GenesisFork | undefined;
  blobs?: BlobParams;
  depositContract?: string;
  systemContracts: string[];
}

/** The node's `eth_config` (undefined when it has none); a fork that is not active from genesis is refused. */
async function readEthConfig(upstream: Upstream, chainId: number): Promise<EthConfig | undefined> {
  let answer: unknown;
  try {
    answer = await upstream.call('eth_config');
  } catch (err) {
    if (err instanceof UpstreamRpcError) return undefined;
    throw err;
  }
  const current = isObject(answer) && isObject(answer.current) ? answer.current : undefined;
  if (!current) throw new UpstreamError('eth_config answered without a current fork');
  if (isObject(answer) && answer.next !== null && answer.next !== undefined) {
    throw new Error("the node schedules a fork after its genesis (eth_config's next): init --from-node takes nodes whose forks are all active from block 0");
  }
  if (current.chainId !== undefined && Number(BigInt(hex(current.chainId, 'eth_config chainId'))) !== chainId) {
    throw new UpstreamError(`eth_config names chain id ${String(current.chainId)}, eth_chainId ${chainId}`);
  }
  const precompiles = isObject(current.precompiles) ? Object.keys(current.precompiles) : [];
  const system = isObject(current.systemContracts) ? (current.systemContracts as Record<string, unknown>) : {};
  let fork: GenesisFork | undefined;
  if (precompiles.includes('P256VERIFY')) fork = 'osaka';
  else if (system.HISTORY_STORAGE_ADDRESS !== undefined || precompiles.some((p) => p.startsWith('BLS12_'))) fork = 'prague';
  else if (system.BEACON_ROOTS_ADDRESS !== undefined || precompiles.includes('KZG_POINT_EVALUATION')) fork = 'cancun';
  const b = isObject(current.blobSchedule) ? current.blobSchedule : undefined;
  const blobs =
    b && typeof b.target === 'number' && typeof b.max === 'number' && typeof b.baseFeeUpdateFraction === 'number'
      ? { target: b.target, max: b.max, baseFeeUpdateFraction: b.baseFeeUpdateFraction }
      : undefined;
  const systemContracts = Object.values(system).map((a) => hex(a, 'eth_config system contract').toLowerCase());
  const deposit = system.DEPOSIT_CONTRACT_ADDRESS;
  return { fork, blobs, depositContract: deposit === undefined ? undefined : hex(deposit, 'deposit contract').toLowerCase(), systemContracts };
}

/** The node's fork: eth_config's, else block 0's fields (and P256VERIFY for Osaka); the two must agree. */
async function findFork(upstream: Upstream, block0: Json, ethConfig: EthConfig | undefined): Promise<Pick<NodeGenesisInfo, 'fork' | 'forkSource'>> {
  const has = (field: string) => block0[field] !== undefined && block0[field] !== null;
  if (!has('baseFeePerGas')) {
    throw new Error("the node's block 0 has no baseFeePerGas (a chain before London): give tracenode init its genesis file (--genesis)");
  }
  let fromFields: GenesisFork = 'merge';
  if (BigInt(hex(block0.difficulty, 'difficulty')) > 0n) fromFields = 'london';
  else if (has('requestsHash')) fromFields = 'prague';
  else if (has('parentBeaconBlockRoot') || has('excessBlobGas')) fromFields = 'cancun';
  else if (has('withdrawalsRoot')) fromFields = 'shanghai';
  if (ethConfig?.fork !== undefined) {
    const agrees = ethConfig.fork === fromFields || (ethConfig.fork === 'osaka' && fromFields === 'prague');
    if (!agrees) throw new Error(`the node's eth_config names fork ${ethConfig.fork}, its block 0's fields are ${fromFields}'s`);
    return { fork: ethConfig.fork, forkSource: 'eth_config' };
  }
  if (fromFields !== 'prague') return { fork: fromFields, forkSource: 'block 0 fields' };
  let out: unknown;
  try {
    out = await upstream.call('eth_call', [{ to: P256VERIFY, data: P256_INPUT }, '0x0']);
  } catch (err) {
    if (!(err instanceof UpstreamRpcError)) throw err;
  }
  return { fork: out === P256_VALID ? 'osaka' : 'prague', forkSource: 'block 0 fields and P256VERIFY' };
}

/**
 * The accounts among `addresses` that exist at block 0, as a geth `alloc`, and the root of the
 * node's state (the root node of the proofs, hashed: every proof starts at it).
 */
async function readAllocation(
  upstream: Upstream,
  addresses: string[],
  slots: Record<string, bigint[]> = {},
): Promise<{ alloc: Record<string, Json>; proofRoot: Uint8Array }> {
  const keys = (a: string) => (slots[a] ?? []).map((slot) => `0x${slot.toString(16).padStart(64, '0')}`);
  const proofs = await upstream.batch(addresses.map((a): Call => ({ method: 'eth_getProof', params: [a, keys(a), '0x0'] })));
  const alloc: Record<string, Json> = {};
  const withCode: Array<[string, string]> = [];
  let proofRoot: string | undefined;
  for (const [i, proof] of proofs.entries()) {
    const address = addresses[i];
    if (!isObject(proof) || !Array.isArray(proof.accountProof)) throw new UpstreamError(`eth_getProof of ${address} at block 0 answered no account proof`);
    const root =
      proof.accountProof.length === 0
        ? bytesToHex(KECCAK256_RLP)
        : bytesToHex(keccak256(hexToBytes(hex(proof.accountProof[0], 'proof node') as `0x${string}`)));
    if (proofRoot !== undefined && root !== proofRoot)
      throw new UpstreamError(`the account proofs at block 0 start from different roots (${proofRoot}, ${root})`);
    proofRoot = root;
    const [balance, nonce, codeHash, storageHash] = ['balance', 'nonce', 'codeHash', 'storageHash'].map((f) =>
      hex(proof[f], `${address}'s ${f}`).toLowerCase(),
    );
    const storage = await storageOf(address, proof, storageHash);
    const hasCode = codeHash !== bytesToHex(KECCAK256_NULL) && !/^0x0*$/.test(codeHash);
    if (BigInt(balance) === 0n && BigInt(nonce) === 0n && !hasCode && storage === undefined) continue;
    alloc[address] = BigInt(nonce) === 0n ? { balance } : { balance, nonce };
    if (storage !== undefined) alloc[address].storage = storage;
    if (hasCode) withCode.push([address, codeHash]);
  }
  const codes = await upstream.batch(withCode.map(([address]): Call => ({ method: 'eth_getCode', params: [address, '0x0'] })));
  for (const [i, [address, codeHash]] of withCode.entries()) {
    const code = hex(codes[i], `${address}'s code`).toLowerCase();
    if (bytesToHex(keccak256(hexToBytes(code as `0x${string}`))) !== codeHash)
      throw new UpstreamError(`the code of ${address} at block 0 does not hash to its code hash ${codeHash}`);
    alloc[address].code = code;
  }
  return { alloc, proofRoot: hexToBytes((proofRoot ?? bytesToHex(KECCAK256_RLP)) as `0x${string}`) };
}

/**
 * The storage an account's proof shows for the slots asked (`eth_getProof`'s storageProof), when
 * those slots are all of it: their non-zero values must make a trie whose root is the account's
 * storage root. None for an account without storage; an Error for one holding slots not asked,
 * which JSON-RPC cannot list.
 */
async function storageOf(address: string, proof: Json, storageHash: string): Promise<Record<string, string> | undefined> {
  if (storageHash === bytesToHex(KECCAK256_RLP) || /^0x0*$/.test(storageHash)) return undefined;
  const storage: Record<string, string> = {};
  const trie = new MerklePatriciaTrie({ useKeyHashing: true });
  for (const entry of Array.isArray(proof.storageProof) ? proof.storageProof : []) {
    if (!isObject(entry)) continue;
    const value = BigInt(hex(entry.value, `${address}'s storage value`));
    if (value === 0n) continue;
    const key = `0x${BigInt(hex(entry.key, `${address}'s storage key`))
      .toString(16)
      .padStart(64, '0')}`;
    storage[key] = `0x${value.toString(16).padStart(64, '0')}`;
    await trie.put(hexToBytes(key as `0x${string}`), RLP.encode(bigIntToUnpaddedBytes(value)));
  }
  if (bytesToHex(trie.root()) !== storageHash) {
    throw new Error(
      `account ${address} has storage at block 0 (storage root ${storageHash}) beyond the slots tracenode reads of it, which JSON-RPC cannot list: give tracenode init the node's genesis file (--genesis)`,
    );
  }
  return storage;
}

/** Block 0's header fields under their geth genesis names. */
function headerFields(block0: Json): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [rpc, geth] of HEADER_FIELDS) {
    if (block0[rpc] !== undefined && block0[rpc] !== null) out[geth] = hex(block0[rpc], rpc);
  }
  return out;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hex(value: unknown, what: string): string {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]*$/.test(value)) throw new UpstreamError(`the node answered a malformed ${what}`);
  return value;
}
