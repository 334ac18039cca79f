/**
 * Revert data decoding as geth does it for `eth_call` errors (ethereum/go-ethereum
 * `accounts/abi/abi.go` UnpackRevert, `internal/ethapi/errors.go` newRevertError): Solidity's
 * `Error(string)` becomes `execution reverted: <string>`, `Panic(uint256)` becomes
 * `execution reverted: <text from the panic table>`, anything else (custom errors, empty or
 * malformed data) is plain `execution reverted`. The raw bytes always travel in the error's `data`.
 */

/** `bytes4(keccak256("Error(string)"))`. */
export const ERROR_SELECTOR = 0x08c379a0;
/** `bytes4(keccak256("Panic(uint256)"))`. */
export const PANIC_SELECTOR = 0x4e487b71;

/** The message geth gives a reverted call with no decodable reason. */
export const EXECUTION_REVERTED = 'execution reverted';

/** Solidity's panic codes and the texts geth prints for them (`accounts/abi/abi.go` panicReasons). */
export const PANIC_REASONS: ReadonlyMap<bigint, string> = new Map([
  [0x00n, 'generic panic'],
  [0x01n, 'assert(false)'],
  [0x11n, 'arithmetic underflow or overflow'],
  [0x12n, 'division or modulo by zero'],
  [0x21n, 'enum overflow'],
  [0x22n, 'invalid encoded storage byte array accessed'],
  [0x31n, 'out-of-bounds array access; popping on an empty array'],
  [0x32n, 'out-of-bounds access of an array or bytesN'],
  [0x41n, 'out of memory'],
  [0x51n, 'uninitialized function'],
]);

const WORD = 32;
/** geth rejects ABI offsets and lengths that do not fit an int64. */
const MAX_INT63 = (1n << 63n) - 1n;

/**
 * The human-readable reason in revert data, or undefined when geth would not decode it (not
 * `Error(string)`/`Panic(uint256)`, or malformed ABI encoding).
 */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined;
  const selector = ((data[0] << 24) | (data[1] << 16) | (data[2] << 8) | data[3]) >>> 0;
  const body = data.subarray(4);
  // Both reasons start with one head word; geth's toGoType refuses shorter output. (Trailing
  // bytes that are not a whole word are fine: Solidity does not pad the revert string's tail.)
  if (body.length < WORD) return undefined;
  if (selector === ERROR_SELECTOR) return decodeAbiString(body);
  if (selector === PANIC_SELECTOR) {
    const code = readWord(body, 0);
    return PANIC_REASONS.get(code) ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  return undefined;
}

/** `execution reverted` or `execution reverted: <reason>`, exactly as geth builds the message. */
export function revertMessage(data: Uint8Array): string {
  const reason = decodeRevertReason(data);
  return reason === undefined ? EXECUTION_REVERTED : `${EXECUTION_REVERTED}: ${reason}`;
}

/** A single ABI-encoded `string` argument, with geth's bounds checks (`lengthPrefixPointsTo`). */
function decodeAbiString(body: Uint8Array): string | undefined {
  const offsetEnd = readWord(body, 0) + BigInt(WORD);
  if (offsetEnd > BigInt(body.length) || offsetEnd > MAX_INT63) return undefined;
  const start = Number(offsetEnd);
  const length = readWord(body, start - WORD);
  const end = offsetEnd + length;
  if (end > MAX_INT63 || end > BigInt(body.length)) return undefined;
  return decodeUtf8LikeGo(body.subarray(start, Number(end)));
}

function readWord(bytes: Uint8Array, at: number): bigint {
  let v = 0n;
  for (let i = at; i < at + WORD; i++) v = (v << 8n) | BigInt(bytes[i]);
  return v;
}

/**
 * UTF-8 → string the way Go's JSON encoder renders a Go string holding arbitrary bytes: each byte
 * that does not start a valid sequence becomes one U+FFFD (TextDecoder would merge some runs).
 */
export function decodeUtf8LikeGo(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b0 = bytes[i];
    if (b0 < 0x80) {
      out += String.fromCharCode(b0);
      i++;
      continue;
    }
    const [size, min] = b0 >= 0xf0 && b0 <= 0xf4 ? [4, 0x10000] : b0 >= 0xe0 ? (b0 <= 0xef ? [3, 0x800] : [0, 0]) : b0 >= 0xc2 ? [2, 0x80] : [0, 0];
    let cp = size === 2 ? b0 & 0x1f : size === 3 ? b0 & 0x0f : b0 & 0x07;
    let ok = size > 0 && i + size <= bytes.length;
    for (let k = 1; ok && k < size; k++) {
      const b = bytes[i + k];
      if ((b & 0xc0) !== 0x80) ok = false;
      else cp = (cp << 6) | (b & 0x3f);
    }
    if (ok && (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))) ok = false;
    if (!ok) {
      out += '\ufffd';
      i++;
      continue;
    }
    out += String.fromCodePoint(cp);
    i += size;
  }
  return out;
}
