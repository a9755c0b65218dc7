import { BaseError } from './base-error.js';

/**
 * A configuration that cannot run: a sandbox's flags or config file, or the service's options. The message names
 * the field; one class for both sides, so `--json` output and `instanceof` checks agree wherever it is thrown.
 */
export class ConfigError extends BaseError {
  override readonly name = 'ConfigError';

  constructor(message: string) {
    super(message, { code: 'invalid_config', docsPath: 'docs/devnet.md#configuration' });
  }
}
