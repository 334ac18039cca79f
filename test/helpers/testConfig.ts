import { type Config, defaultConfig } from '../../src/config/settings.js';

/** Some settings of some sections: what a test changes. */
export type ConfigOverrides = { [S in keyof Config]?: Partial<Config[S]> };

/**
 * The default configuration with the given settings changed, section by section, as a test
 * passes it to the layer it exercises: `testConfig({ execution: { callTimeoutMs: 200 } })`.
 */
export function testConfig(overrides: ConfigOverrides = {}): Config {
  const config = defaultConfig();
  for (const [section, values] of Object.entries(overrides) as [keyof Config, object | undefined][]) {
    Object.assign(config[section], values);
  }
  return config;
}
