import type { RequestContext } from '../../../rpc/method.js';

/**
 * Who owns a filter: the API key id of the request (never the key itself). A call made outside
 * a request (tests, internal callers) owns its filters under one internal name.
 */
export function filterOwner(req: RequestContext | undefined): string {
  return req?.session.keyId ?? '(internal)';
}
