import { describe, expect, it } from 'vitest';
import { simulatedWork, until } from '../../test/helpers/until.js';
import { defaultConfig } from '../config/settings.js';
import { FollowLoop } from './followLoop.js';
import type { Upstream } from './upstream.js';

const quiet = { info() {}, warn() {}, error() {}, debug() {} };

/** A loop whose rounds are counted; the upstream pushes a new head in the middle of the first round. */
class PushDuringRound extends FollowLoop {
  rounds = 0;
  private push: (() => void) | undefined;
  protected async checkSameChain(): Promise<void> {}
  protected subscribeNewHeads(wake: () => void): void {
    this.push = wake;
  }
  protected async syncOnce(): Promise<void> {
    this.rounds++;
    if (this.rounds === 1) {
      await simulatedWork(20);
      this.push?.(); // the head arrives while this round still runs
      await simulatedWork(20);
    }
  }
}

describe('FollowLoop', () => {
  it('a new head pushed during a round starts the next round at once, not after the poll interval', async () => {
    const settings = { ...defaultConfig().follow, pollIntervalMs: 60_000 };
    const upstream = { shownUrl: 'ws://upstream', isWebSocket: true, close() {} } as unknown as Upstream;
    const loop = new PushDuringRound(upstream, { settings, log: quiet });
    loop.start();
    await until(
      'a second round',
      () => loop.rounds,
      (n) => n >= 2,
    );
    await loop.stop();
    expect(loop.rounds).toBe(2);
    expect(loop.status().state).toBe('following');
  });
});
