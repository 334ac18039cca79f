/**
 * JSON text kept with answer objects that the method layer shares between answers: a log or a
 * receipt rendered once and kept while its block is cached (`methods/eth/_shared/rendered.ts`).
 * Serializing such an object costs as much as rendering it again (a receipt with its logs: ~10 µs
 * of a request's CPU), so its text is made the first time an answer carries it and reused after.
 *
 * An object is marked with {@link keepJson} by whoever shares it; from then on it must never be
 * changed (callers that need another shape copy it first, as the Otterscan methods do). The text
 * lives as long as the object does (a WeakMap), so it is bounded by the cache that holds the
 * object, which counts it in its weight. It sits below both the method layer that marks objects
 * and the dispatcher (`rpc/dispatch.ts`) that serializes results.
 */

/** Marked objects: their JSON text once made, `null` before. */
const texts = new WeakMap<object, string | null>();

/** Marks `value` as shared and never changed: its JSON text may be kept with it. Returns `value`. */
export function keepJson<T extends object>(value: T): T {
  if (!texts.has(value)) texts.set(value, null);
  return value;
}

/** The JSON text of a marked object (made once), or undefined for an object not marked. */
function keptText(value: object): string | undefined {
  const kept = texts.get(value);
  if (kept === undefined) return undefined;
  if (kept !== null) return kept;
  const made = JSON.stringify(value);
  texts.set(value, made);
  return made;
}

/**
 * `JSON.stringify(value)` for a method's result, with the kept text of a marked object, or of
 * each marked element of an array of objects (eth_getLogs' answer: a new array of kept logs).
 * The text is what `JSON.stringify` gives for the same value.
 */
export function resultJson(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const kept = keptText(value);
  if (kept !== undefined) return kept;
  if (!Array.isArray(value) || value.length === 0 || !texts.has(value[0] as object)) return JSON.stringify(value);
  let out = '[';
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    // Anything not kept takes JSON.stringify's own text; what it leaves out of an array (a hole,
    // undefined, a function) is null there.
    const text = (typeof item === 'object' && item !== null ? keptText(item) : undefined) ?? JSON.stringify(item) ?? 'null';
    out += i === 0 ? text : `,${text}`;
  }
  return `${out}]`;
}
