import { describe, expect, it } from 'vitest';
import { setV8Flags, V8_FLAGS } from './v8Flags.js';

describe('setV8Flags', () => {
  it('turns allocation-site pretenuring off when node was started without a say in it', () => {
    const set: string[] = [];
    expect(setV8Flags(['--enable-source-maps', '--max-old-space-size=4096'], (f) => set.push(f))).toEqual(['--no-allocation-site-pretenuring']);
    expect(set).toEqual(['--no-allocation-site-pretenuring']);
    expect(V8_FLAGS).toEqual(['--no-allocation-site-pretenuring']);
  });

  it('leaves the flag to the user who passed it to node, in either form or spelling', () => {
    for (const given of [
      '--allocation-site-pretenuring',
      '--no-allocation-site-pretenuring',
      '--allocation_site_pretenuring',
      '--allocation-site-pretenuring=true',
    ]) {
      const set: string[] = [];
      expect(setV8Flags([given], (f) => set.push(f))).toEqual([]);
      expect(set).toEqual([]);
    }
  });
});
