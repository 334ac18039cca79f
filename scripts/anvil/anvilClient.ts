// Owns the JSON-RPC client the anvil generator talks to anvil with: a viem client over HTTP whose
// `request` is typed by the methods below, as anvil 1.7.1 sends them (wire format: hex quantities).
import { type Address, type Client, createClient, type Hash, type Hex, type HttpTransport, http, rpcSchema } from 'viem';

/** A block as eth_getBlockByNumber(n, false) returns it: every header field the export encodes. */
export interface RpcHeaderBlock {
  hash: Hash;
  parentHash: Hash;
  sha3Uncles: Hash;
  miner: Address;
  stateRoot: Hash;
  transactionsRoot: Hash;
  receiptsRoot: Hash;
  logsBloom: Hex;
  difficulty: Hex;
  number: Hex;
  gasLimit: Hex;
  gasUsed: Hex;
  timestamp: Hex;
  extraData: Hex;
  mixHash: Hash;
  nonce: Hex;
  baseFeePerGas?: Hex | null;
  withdrawalsRoot?: Hash | null;
  blobGasUsed?: Hex | null;
  excessBlobGas?: Hex | null;
  parentBeaconBlockRoot?: Hash | null;
  requestsHash?: Hash | null;
  transactions: Hash[];
  uncles: Hash[];
  withdrawals?: { index: Hex; validatorIndex: Hex; address: Address; amount: Hex }[];
}

/** A call object of eth_call and eth_estimateGas. */
export interface RpcCallRequest {
  from?: Address;
  to: Address;
  data: Hex;
}

/** The methods the generator calls (https://ethereum.github.io/execution-apis/ and anvil's evm_* methods). */
export type AnvilRpcSchema = [
  { Method: 'eth_chainId'; Parameters?: undefined; ReturnType: Hex },
  { Method: 'eth_blockNumber'; Parameters?: undefined; ReturnType: Hex },
  { Method: 'eth_getBlockByNumber'; Parameters: [Hex, false]; ReturnType: RpcHeaderBlock | null },
  { Method: 'eth_getRawTransactionByHash'; Parameters: [Hash]; ReturnType: Hex | null },
  { Method: 'eth_getTransactionReceipt'; Parameters: [Hash]; ReturnType: { status: Hex; contractAddress: Address | null } | null },
  { Method: 'eth_getCode'; Parameters: [Address, 'latest']; ReturnType: Hex },
  { Method: 'eth_estimateGas'; Parameters: [RpcCallRequest]; ReturnType: Hex },
  { Method: 'eth_call'; Parameters: [RpcCallRequest, 'latest']; ReturnType: Hex },
  { Method: 'eth_sendRawTransaction'; Parameters: [Hex]; ReturnType: Hash },
  /** Mines one block with this timestamp (seconds). */
  { Method: 'evm_mine'; Parameters: [number]; ReturnType: string },
  /** Sets anvil's clock (seconds). */
  { Method: 'evm_setTime'; Parameters: [number]; ReturnType: number },
];

/** A viem client of one anvil. */
export type AnvilClient = Client<HttpTransport, undefined, undefined, AnvilRpcSchema>;

/**
 * A client of the anvil at `url`. With `batch`, the requests made in one tick go as one JSON-RPC
 * batch (anvil runs a batch's requests concurrently: reads only). No retries: a failed request is
 * the generator's error, and a transaction must never be sent twice.
 */
export function createAnvilClient(url: string, { batch = false, timeoutMs = 60_000 }: { batch?: boolean; timeoutMs?: number } = {}): AnvilClient {
  return createClient({
    transport: http(url, { batch: batch ? { batchSize: 1000 } : false, retryCount: 0, timeout: timeoutMs }),
    rpcSchema: rpcSchema<AnvilRpcSchema>(),
  });
}
