import type { describe } from 'vitest';
import { describeWithProgram, onPath } from './programs.js';

export { freePort, type RedisProcess as TestRedis, startRedis } from '../../scripts/lib/services.js';

/** `describe` for tests that start Debian's redis-server (see {@link describeWithProgram}). */
export function describeWithRedis(who: string): typeof describe {
  return describeWithProgram(onPath('redis-server'), 'redis-server', who);
}
