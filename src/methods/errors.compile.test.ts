import { afterAll, describe, expect, it } from 'vitest';
import { plants } from '../../test/helpers/plants.js';

const planted = plants('errors');
const UP = planted.up;
const compile = planted.compile;

afterAll(() => planted.remove());

/**
 * #40: the domain → wire contract is checked by the compiler. Each plant is a new domain error a
 * careless change could add; each must fail to compile, naming what is missing.
 */
describe('a domain error without a wire answer does not compile', () => {
  it('a new name (and its class) without a line in methods/errors.ts; a class named outside the set; a class named nothing', async () => {
    const errors = await compile({
      'unmapped.ts': [
        `import { DomainError } from '${UP}/src/errors/domainError.js';`,
        `import '${UP}/src/methods/errors.js';`,
        `declare module '${UP}/src/errors/domainError.js' {`,
        '  interface DomainErrorNames {',
        '    PlantedError: true;',
        '  }',
        '}',
        'export class PlantedError extends DomainError {',
        "  override readonly name = 'PlantedError';",
        '}',
      ].join('\n'),
      'stray.ts': [
        `import { DomainError } from '${UP}/src/errors/domainError.js';`,
        'export class StrayError extends DomainError {',
        "  override readonly name = 'StrayError';",
        '}',
        'export class NamelessError extends DomainError {}',
      ].join('\n'),
    });
    expect(errors).toHaveLength(3);
    expect(errors.find((e) => e.startsWith('src/methods/errors.ts'))).toMatch(/error TS2741: Property 'PlantedError' is missing/);
    expect(errors.find((e) => e.startsWith('stray.ts(3'))).toMatch(/error TS2416: Property 'name' in type 'StrayError'/);
    expect(errors.find((e) => e.startsWith('stray.ts(5'))).toMatch(
      /error TS2515: Non-abstract class 'NamelessError' does not implement inherited abstract member name/,
    );
  }, 120_000);
});
