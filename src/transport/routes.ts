/**
 * The routes of the server and the one grammar of the API key in them. Logs name a request by its
 * route (`POST /v3/:key`), never by its URL: a URL holds the key (percent-encoded or not) and
 * clients put keys in query strings and mistyped paths too, so no part of a raw URL is logged.
 */

/** The route of a request, as logs and metrics name it. */
export type RouteName = 'rpc' | 'ws' | 'rpc-no-key' | 'ws-no-key' | 'health' | 'metrics' | 'unmatched';

/** `/v3/<key>` with an optional trailing slash and query string; the key is `API_KEY_PATTERN`'s grammar. */
const RPC_PATH = /^\/v3\/([A-Za-z0-9_-]+)\/?(?:\?.*)?$/;

/**
 * The key of a literal `POST /v3/<key>` URL (no percent-encoding), or undefined for any other URL
 * (those go through the router, which decodes them).
 */
export function literalRpcKey(url: string): string | undefined {
  return RPC_PATH.exec(url)?.[1];
}

/** The template of a route, for log lines. */
export function routeTemplate(route: RouteName): string {
  switch (route) {
    case 'rpc':
      return '/v3/:key';
    case 'ws':
      return '/ws/v3/:key';
    case 'rpc-no-key':
      return '/v3';
    case 'ws-no-key':
      return '/ws/v3';
    case 'health':
      return '/health';
    case 'metrics':
      return '/metrics';
    default:
      return '(unmatched path)';
  }
}
