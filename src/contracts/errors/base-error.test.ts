import { describe, expect, it } from 'vitest';
import { BaseError, walkCauses } from './base-error.js';
import { ConfigError } from './config-error.js';

describe('BaseError', () => {
  it('keeps the message as given and adds no own field that was not given (renderers test for `code`)', () => {
    const error = new BaseError('short');
    expect(error.message).toBe('short');
    expect(error.shortMessage).toBe('short');
    expect(Object.keys(error)).toEqual([]);
    expect('cause' in error).toBe(false);
    expect(error.name).toBe('Error');
  });

  it('carries code, details, docs path and cause when given', () => {
    const cause = new Error('inner');
    const error = new BaseError('outer', { code: 'port_in_use', details: 'more', docsPath: 'docs/devnet.md#ports', cause });
    expect(error).toMatchObject({ code: 'port_in_use', details: 'more', docsPath: 'docs/devnet.md#ports', cause });
  });

  it('walks the cause chain: the innermost cause, or the first error a predicate accepts', () => {
    const root = new Error('root');
    const middle = new ConfigError('middle');
    const top = new BaseError('top', { cause: new Error('wrap', { cause: middle }) });
    Object.assign(middle, { cause: root });
    expect(top.walk()).toBe(root);
    expect(top.walk((e) => e instanceof ConfigError)).toBe(middle);
    expect(top.walk((e) => e === 'nothing')).toBeNull();
    expect(walkCauses('not an error')).toBe('not an error');
  });

  it('ConfigError is one class with the code and docs path of the CLI', () => {
    const error = new ConfigError('--chains: "x" is not a whole number.');
    expect(error).toBeInstanceOf(BaseError);
    expect(error).toMatchObject({ name: 'ConfigError', code: 'invalid_config', docsPath: 'docs/devnet.md#configuration' });
  });
});
