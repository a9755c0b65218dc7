/** A service configuration that cannot run (the message names the field). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
