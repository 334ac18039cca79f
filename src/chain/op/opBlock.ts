import { Block, type BlockHeader, createBlockHeaderFromBytesArray } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { Capability, createTxFromBlockBodyData, type TypedTransaction } from '@ethereumjs/tx';
import { Address, bigIntToHex, bytesToHex, createWithdrawalFromBytesArray, type Withdrawal, type WithdrawalBytes } from '@ethereumjs/util';
import { keccak256 } from '../../codec/keccak.js';
import { OpBlockError } from './baseFee.js';
import { DEPOSIT_TX_TYPE, type DepositTx, decodeDepositTx, isDeposit } from './depositTx.js';

/**
 * OP-stack blocks as ethereumjs `Block`s, so that what holds, hashes and encodes Ethereum blocks
 * holds theirs: a deposit (type 0x7E), which @ethereumjs/tx does not know, sits in the block's
 * transaction list as a {@link DepositTransaction}, which gives what a block asks of a typed
 * transaction (its type, EIP-2718 bytes and hash); signed transactions are ethereumjs' own. The
 * block's encoding, transactions root and hash are then computed by @ethereumjs/block as for any
 * block, and {@link opBlockFromBytes} reads that encoding back.
 */

/** A deposit transaction in a block's transaction list. */
export class DepositTransaction {
  readonly type = DEPOSIT_TX_TYPE;
  readonly deposit: DepositTx;
  private readonly bytes: Uint8Array;
  private hashed: Uint8Array | undefined;

  /**
   * From its EIP-2718 bytes; throws DepositDecodeError for bytes that are not a deposit. `nonce`:
   * its sender's nonce when it ran, which a deposit does not carry — given by the executor to
   * what watches it run (a tracer names a created contract by it).
   */
  constructor(
    raw: Uint8Array,
    readonly nonce?: bigint,
  ) {
    this.deposit = decodeDepositTx(raw);
    this.bytes = raw;
  }

  /** Its EIP-2718 bytes (0x7E ‖ RLP of its fields), as the block and the transactions root hold them. */
  serialize(): Uint8Array {
    return this.bytes;
  }

  hash(): Uint8Array {
    this.hashed ??= keccak256(this.bytes);
    return this.hashed;
  }

  /** A deposit is typed (EIP-2718) and has none of the signed transactions' other capabilities. */
  supports(capability: Capability): boolean {
    return capability === Capability.EIP2718TypedTransaction;
  }

  getSenderAddress(): Address {
    return new Address(this.deposit.from);
  }

  get to(): Address | undefined {
    return this.deposit.to === undefined ? undefined : new Address(this.deposit.to);
  }

  get gasLimit(): bigint {
    return this.deposit.gasLimit;
  }

  get value(): bigint {
    return this.deposit.value;
  }

  get data(): Uint8Array {
    return this.deposit.data;
  }

  /** Its fields under op-geth's JSON names. */
  toJSON(): Record<string, string | boolean | null> {
    const d = this.deposit;
    return {
      type: bigIntToHex(BigInt(DEPOSIT_TX_TYPE)),
      sourceHash: bytesToHex(d.sourceHash),
      from: bytesToHex(d.from),
      to: d.to === undefined ? null : bytesToHex(d.to),
      mint: bigIntToHex(d.mint),
      value: bigIntToHex(d.value),
      gas: bigIntToHex(d.gasLimit),
      isSystemTx: d.isSystemTx,
      input: bytesToHex(d.data),
    };
  }
}

/** A transaction of an OP block from its EIP-2718 bytes (a legacy one from its RLP list's bytes). */
function opTransaction(raw: Uint8Array, common: Common): TypedTransaction | DepositTransaction {
  if (isDeposit(raw)) return new DepositTransaction(raw);
  // A legacy transaction is held as its RLP list, a typed one as its bytes: as a block body holds them.
  return createTxFromBlockBodyData(raw[0] >= 0xc0 ? (RLP.decode(raw) as Uint8Array[]) : raw, { common });
}

/**
 * The block of `header` and its transactions' EIP-2718 bytes (and withdrawals, none from Canyon on
 * OP chains but the list the header commits to), at the header's Common.
 */
export function opBlock(header: BlockHeader, transactions: readonly Uint8Array[], withdrawals?: Withdrawal[]): Block {
  const txs = transactions.map((raw) => opTransaction(raw, header.common));
  return new Block(header, txs as TypedTransaction[], [], withdrawals, { common: header.common });
}

/**
 * Reads back what `block.serialize()` wrote for an OP block. `common`: the chain's, its hardfork
 * set by the block's number and time (`setHardfork`, as the store reads blocks), or one already at
 * the block's upgrade (`opCommon`) with `setHardfork` false.
 */
export function opBlockFromBytes(bytes: Uint8Array, common: Common, setHardfork = true): Block {
  const values = RLP.decode(bytes) as unknown[];
  if (!Array.isArray(values) || values.length < 3) throw new OpBlockError('an OP block encodes as a list of its header, transactions and uncles');
  const [headerFields, txs, uncles, withdrawals] = values as [Uint8Array[], Array<Uint8Array | Uint8Array[]>, unknown[], WithdrawalBytes[] | undefined];
  if (uncles.length > 0) throw new OpBlockError('an OP block has no uncles');
  const header = createBlockHeaderFromBytesArray(headerFields, { common, setHardfork });
  // A legacy transaction is held as its RLP list: its EIP-2718 bytes are that list's encoding.
  const raws = txs.map((tx) => (Array.isArray(tx) ? RLP.encode(tx) : tx));
  return opBlock(
    header,
    raws,
    withdrawals?.map((w) => createWithdrawalFromBytesArray(w)),
  );
}
