import { createHash, createPublicKey, hash, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/**
 * API keys and their policies, as hosted providers offer them (Infura's project settings): an
 * optional secret (HTTP Basic password) or JWT, allowlists of Origins, User-Agents, contracts and
 * methods, a rate limit with a burst, a daily quota and a cap on heavy requests in flight (the
 * methods whose definitions declare `cost: 'heavy'`, `rpc/method.ts`).
 *
 * A keys file is either one key per line (`#` comments; keys without policies) or YAML/JSON of the
 * shape below, recognised by its content. Unknown fields are an error, not ignored; every entry's
 * problem is reported with its position.
 *
 * ```yaml
 * keys:
 *   - key: team-a-key
 *     id: team-a
 *     secret: s3cret
 *     rateLimit: { perSecond: 50, burst: 100 }
 *     dailyQuota: 100000
 *     maxConcurrentHeavy: 4
 *     allow: { origins: ["https://app.example.com"], methods: ["eth_call"] }
 *   - key: open-key
 * ```
 */

/** The most entries one allowlist kind may have (Infura's limit). */
export const MAX_ALLOWLIST_ENTRIES = 30;
/** The grammar of an API key: what may appear in `/v3/<key>`. */
export const API_KEY_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

const allowlist = <T extends z.ZodType>(item: T) => z.array(item).min(1).max(MAX_ALLOWLIST_ENTRIES).optional();

const KeyEntry = z
  .object({
    key: z.string().regex(API_KEY_PATTERN, 'letters, digits, "_" and "-", at most 128'),
    id: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, "_", "." and "-", at most 64')
      .optional(),
    secret: z.string().min(1).max(256).optional(),
    jwt: z
      .object({
        publicKeys: z.array(z.string().min(1)).min(1).max(8),
        audience: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
    rateLimit: z.object({ perSecond: z.number().int().positive(), burst: z.number().int().positive() }).strict().optional(),
    dailyQuota: z.number().int().positive().optional(),
    maxConcurrentHeavy: z.number().int().positive().optional(),
    allow: z
      .object({
        origins: allowlist(z.string().regex(/^(\*\.)?[^\s*]+$/, 'an origin, or "*." followed by a domain')),
        userAgents: allowlist(z.string().min(1).max(256)),
        contracts: allowlist(z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'a 20-byte address')),
        methods: allowlist(z.string().regex(/^[A-Za-z0-9_]{1,128}$/, 'a method name')),
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine((k) => k.rateLimit === undefined || k.rateLimit.burst >= k.rateLimit.perSecond, {
    message: 'rateLimit.burst must be at least rateLimit.perSecond',
    path: ['rateLimit', 'burst'],
  })
  .refine((k) => !(k.secret !== undefined && k.jwt !== undefined), {
    message: 'a key takes a secret (HTTP Basic) or a JWT (Bearer), not both: the Authorization header carries one',
    path: ['jwt'],
  });

const KeysFile = z.object({ keys: z.array(KeyEntry).min(1) }).strict();

/** A JWT verification key: the public key and the one algorithm it may sign with. */
export interface JwtKey {
  readonly key: KeyObject;
  readonly algorithm: 'ES256' | 'RS256';
}

/** One key's policies, ready to apply. Absent fields mean "no restriction". */
export interface KeyPolicy {
  readonly key: string;
  /** Non-secret name for logs and metrics: the file's `id`, or `key-` + 8 hex digits of the key's SHA-256. */
  readonly id: string;
  readonly secret?: string;
  readonly jwt?: { readonly keys: readonly JwtKey[]; readonly audience?: string };
  readonly rateLimit?: { readonly perSecond: number; readonly burst: number };
  readonly dailyQuota?: number;
  readonly maxConcurrentHeavy?: number;
  readonly allow?: {
    readonly origins?: readonly string[];
    readonly userAgents?: readonly string[];
    /** Lower-case 0x addresses. */
    readonly contracts?: ReadonlySet<string>;
    readonly methods?: ReadonlySet<string>;
  };
}

/** A keys file or key list that cannot be used; the message says where and why. */
export class KeysFileError extends Error {
  override readonly name = 'KeysFileError';
}

/** The non-secret id of a key without one: a short hash, stable across restarts. */
export function defaultKeyId(key: string): string {
  return `key-${createHash('sha256').update(key).digest('hex').slice(0, 8)}`;
}

/** Keys without policies, from `--api-keys k1,k2`. */
export function openKeys(list: readonly string[]): KeyPolicy[] {
  return list.map((key) => {
    if (!API_KEY_PATTERN.test(key)) throw new KeysFileError('API keys may use only letters, digits, "_" and "-" (at most 128)');
    return { key, id: defaultKeyId(key) };
  });
}

/**
 * Parses a keys file: YAML or JSON with a `keys` list, or one key per line. Relative JWT key paths
 * are read from the file's directory. Throws {@link KeysFileError}.
 */
export function parseKeysFile(text: string, path: string): KeyPolicy[] {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch {
    doc = undefined; // not YAML (nor JSON): read it as lines
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    const keys = text
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter((k) => k !== '');
    for (const [i, k] of keys.entries()) {
      if (!API_KEY_PATTERN.test(k)) throw new KeysFileError(`${path}: key ${i + 1}: letters, digits, "_" and "-", at most 128`);
    }
    return openKeys(keys);
  }
  const parsed = KeysFile.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length > 0 ? issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('') : '';
    throw new KeysFileError(`${path}: ${where.replace(/^\./, '') || 'file'}: ${issue.message}`);
  }
  const seen = new Map<string, number>();
  const ids = new Set<string>();
  return parsed.data.keys.map((entry, i) => {
    if (seen.has(entry.key)) throw new KeysFileError(`${path}: keys[${i}]: the same key as keys[${seen.get(entry.key)}]`);
    seen.set(entry.key, i);
    const id = entry.id ?? defaultKeyId(entry.key);
    if (ids.has(id)) throw new KeysFileError(`${path}: keys[${i}].id: ${id} is used twice`);
    ids.add(id);
    const jwt = entry.jwt && {
      keys: entry.jwt.publicKeys.map((file, j) => loadJwtKey(resolve(dirname(path), file), `${path}: keys[${i}].jwt.publicKeys[${j}]`)),
      audience: entry.jwt.audience,
    };
    const allow = entry.allow && {
      origins: entry.allow.origins,
      userAgents: entry.allow.userAgents,
      contracts: entry.allow.contracts && new Set(entry.allow.contracts.map((c) => c.toLowerCase())),
      methods: entry.allow.methods && new Set(entry.allow.methods),
    };
    return {
      key: entry.key,
      id,
      secret: entry.secret,
      jwt,
      rateLimit: entry.rateLimit,
      dailyQuota: entry.dailyQuota,
      maxConcurrentHeavy: entry.maxConcurrentHeavy,
      allow,
    };
  });
}

/** Reads and parses a keys file. */
export function readKeysFile(path: string): KeyPolicy[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new KeysFileError(`cannot read keys file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseKeysFile(text, path);
}

/** A PEM public key; its type decides the one algorithm accepted (EC P-256 → ES256, RSA → RS256). */
function loadJwtKey(file: string, where: string): JwtKey {
  let key: KeyObject;
  try {
    key = createPublicKey(readFileSync(file));
  } catch (err) {
    throw new KeysFileError(`${where}: cannot read a public key from ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return { key, algorithm: 'ES256' };
  if (key.asymmetricKeyType === 'rsa') return { key, algorithm: 'RS256' };
  throw new KeysFileError(`${where}: ${file} is neither an EC P-256 nor an RSA public key (ES256 and RS256 are accepted)`);
}

/**
 * The configured keys, looked up in time that does not depend on the presented key's bytes nor on
 * how many keys are configured. The presented key is hashed with a random salt drawn per
 * registry (SHA-256), the digest is looked up in a map, and the key found is then compared with
 * the presented one by `timingSafeEqual`. The map's timing can only depend on the salted digest,
 * which says nothing about which bytes of a key an attacker has right. A presented key longer than
 * the width (the longest key, at least 128 bytes) is refused before hashing; that shows only the
 * width.
 *
 * Why not a comparison with every key (as before): it costs ~0.15 µs per configured key on every
 * request, 83 µs a request with 1,000 keys; the salted digest costs ~0.3 µs whatever their number
 * (the same as that scan over two keys).
 */
export class KeyRegistry {
  private width = 128;
  private keys: Buffer[] = [];
  private policies: KeyPolicy[] = [];
  private byDigest = new Map<string, number>();
  private readonly salt = randomBytes(16).toString('hex');

  constructor(policies: readonly KeyPolicy[]) {
    this.replace(policies);
  }

  /** Installs a new set of keys (a reload); lookups in progress finish with the old set. */
  replace(policies: readonly KeyPolicy[]): void {
    if (policies.length === 0) throw new KeysFileError('no API key configured');
    const byDigest = new Map<string, number>();
    for (const [i, p] of policies.entries()) byDigest.set(this.digest(p.key), i);
    this.keys = policies.map((p) => Buffer.from(p.key));
    this.policies = [...policies];
    this.width = Math.max(128, ...this.keys.map((k) => k.length));
    this.byDigest = byDigest;
  }

  private digest(key: string): string {
    return hash('sha256', this.salt + key, 'base64');
  }

  /** The policy of `key`, or undefined when no configured key equals it. */
  lookup(key: string): KeyPolicy | undefined {
    const bytes = Buffer.from(key);
    if (bytes.length > this.width) return undefined;
    const at = this.byDigest.get(this.digest(key));
    if (at === undefined) return undefined;
    const want = this.keys[at]!;
    // Lengths differ only for a SHA-256 collision.
    return want.length === bytes.length && timingSafeEqual(want, bytes) ? this.policies[at] : undefined;
  }

  /** The longest configured key, in characters (the router's parameter limit must admit it). */
  longestKey(): number {
    return Math.max(...this.policies.map((p) => p.key.length));
  }

  /** Every key's id (for metrics and usage reports). */
  ids(): string[] {
    return this.policies.map((p) => p.id);
  }
}
