import { RawString } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { FILTER } from '../raises.js';
import { filterOwner } from './_shared/filterOwner.js';

/**
 * `eth_uninstallFilter(id)`: removes the filter; true if this key held it, false otherwise (an
 * unknown or expired id, or another key's), as geth answers.
 */
export const uninstallFilter = defineMethod({
  name: 'eth_uninstallFilter',
  raises: FILTER,
  params: [RawString],
  handler: (ctx: EthContext, [id], req) => ctx.events.filters.uninstall(filterOwner(req), id),
});
