/**
 * Values quoted in error messages, bounded. A client's argument can be a megabyte long or nested
 * a hundred thousand levels deep; its error message must stay short and never serialise it whole
 * (a recursive `JSON.stringify` of such a value throws RangeError). geth quotes strings with `%q`
 * and names other JSON values by their kind (`cannot unmarshal array into …`), which this follows.
 */

/** Most characters of a quoted value kept in an error message; past it the quote ends in `…`. */
export const MAX_QUOTED_CHARS = 80;

/** A string cut to {@link MAX_QUOTED_CHARS} characters (`…` marks the cut), for messages that name it unquoted. */
export function cutString(s: string): string {
  return s.length > MAX_QUOTED_CHARS ? `${s.slice(0, MAX_QUOTED_CHARS)}…` : s;
}

/** A string as a JSON string literal, cut to {@link MAX_QUOTED_CHARS} characters. */
export function quoteString(s: string): string {
  return s.length > MAX_QUOTED_CHARS ? `${JSON.stringify(s.slice(0, MAX_QUOTED_CHARS))}…` : JSON.stringify(s);
}

/**
 * Any JSON value for a message: a string quoted (bounded), a number, boolean or null as written
 * (bounded), an array or object by its kind only.
 */
export function quoteValue(value: unknown): string {
  if (typeof value === 'string') return quoteString(value);
  if (value === null || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    const text = String(value);
    return text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS)}…` : text;
  }
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}
