import type { Config } from '../config/settings.js';

/** When a following network's /health turns 503 (`follow.healthMaxLagBlocks`, `follow.healthMaxSilenceMs`). */
export function healthLimits(follow: Config['follow']) {
  return { maxLagBlocks: follow.healthMaxLagBlocks, maxSilenceMs: follow.healthMaxSilenceMs };
}
