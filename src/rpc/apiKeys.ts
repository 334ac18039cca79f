import { timingSafeEqual } from 'node:crypto';

/** API keys: the constant-time check of the key in the URL against the configured keys. */

/** Keys are compared over at least this many characters (see createKeyChecker); `serve` allows 128. */
const KEY_COMPARE_WIDTH = 128;

/**
 * Key check in constant time. The presented key is written into a zeroed buffer of a fixed width
 * (the longest key, at least {@link KEY_COMPARE_WIDTH} bytes) and compared with every configured
 * key, padded the same way, by `crypto.timingSafeEqual`; the lengths are compared separately and
 * the results folded without branching. So the time does not depend on how much of a key the
 * presented one matches, nor on the keys' lengths. A presented key longer than the width cannot
 * match and is refused at once: that shows only the width, a constant unless a configured key is
 * longer than 128 bytes.
 *
 * Not digests: hashing the presented key (HMAC or SHA-256) cost several µs a request under load,
 * more than the rest of the HTTP fast path's own work.
 */
export function createKeyChecker(apiKeys: readonly string[]): (key: string) => boolean {
  const width = Math.max(KEY_COMPARE_WIDTH, ...apiKeys.map((k) => Buffer.byteLength(k)));
  const known = apiKeys.map((k) => {
    const padded = Buffer.alloc(width);
    padded.write(k);
    return { padded, length: Buffer.byteLength(k) };
  });
  const scratch = Buffer.alloc(width);
  return (key) => {
    const length = Buffer.byteLength(key);
    if (length > width) return false;
    scratch.fill(0);
    scratch.write(key);
    let matches = 0;
    for (const k of known) matches |= Number(timingSafeEqual(scratch, k.padded)) & Number(k.length === length);
    return matches === 1;
  };
}
