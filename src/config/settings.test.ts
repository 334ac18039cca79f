import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderSettingsTable } from './settings.js';

describe('README', () => {
  it('the configuration table is renderSettingsTable() exactly, so the two cannot drift', () => {
    const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8').split('\n');
    const start = readme.findIndex((line) => line.startsWith('| setting | flag | environment |'));
    expect(start, 'README has no settings table').toBeGreaterThan(0);
    let end = start;
    while (end < readme.length && readme[end].startsWith('|')) end++;
    // On a difference: paste the output of renderSettingsTable() (src/config/settings.ts) into README.
    expect(readme.slice(start, end).join('\n')).toBe(renderSettingsTable());
  });
});
