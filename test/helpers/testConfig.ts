import { type Config, defaultConfig } from '../../src/config/settings.js';

/** Some settings of some sections: what a test changes. */
export type ConfigOverrides = { [S in keyof Config]?: Partial<Config[S]> };

/**
 * The default configuration with the given settings changed, section by section, as a test
 * passes it to the layer it exercises: `testConfig({ execution: { callTimeoutMs: 200 } })`.
 */
export function testConfig(overrides: ConfigOverrides = {}): Config {
  const config = defaultConfig();
  // The suite runs at any EVM pool size: TRACENODE_EXECUTION_EVM_WORKERS=1 npm test (a served
  // node reads the same variable).
  const workers = process.env.TRACENODE_EXECUTION_EVM_WORKERS;
  if (workers) config.execution.evmWorkers = Number(workers);
  for (const [section, values] of Object.entries(overrides) as [keyof Config, object | undefined][]) {
    Object.assign(config[section], values);
  }
  return config;
}
