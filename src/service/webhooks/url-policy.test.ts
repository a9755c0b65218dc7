import { describe, expect, it } from 'vitest';
import { isPublicAddress, UrlRefused, WebhookUrlPolicy } from './url-policy.js';

const table: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34'],
  'rebind.example.com': ['93.184.216.34', '10.1.2.3'],
  'six.example.com': ['2606:4700::6810:85e5'],
  'inside6.example.com': ['fd00::1'],
};
const resolver = async (host: string) => {
  const found = table[host];
  if (found === undefined) throw new Error('ENOTFOUND');
  return found;
};

async function refused(policy: WebhookUrlPolicy, url: string): Promise<string> {
  try {
    await policy.check(url);
  } catch (error) {
    expect(error).toBeInstanceOf(UrlRefused);
    return (error as Error).message;
  }
  throw new Error(`${url} was accepted`);
}

describe('webhook URL policy', () => {
  const production = new WebhookUrlPolicy({ environment: 'production', resolver });
  const sandbox = new WebhookUrlPolicy({ environment: 'sandbox', resolver });

  it('production: public HTTPS only', async () => {
    expect(await production.check('https://hooks.example.com/settle?x=1')).toBe('https://hooks.example.com/settle?x=1');
    expect(await production.check('https://six.example.com/')).toBe('https://six.example.com/');
    expect(await production.check('https://93.184.216.34/')).toBe('https://93.184.216.34/');
    expect(await refused(production, 'http://hooks.example.com/')).toMatch(/https/);
    for (const url of [
      'https://127.0.0.1/',
      'https://localhost/',
      'http://localhost:3000/',
      'https://10.0.0.8/',
      'https://172.16.5.4/',
      'https://192.168.1.1/',
      'https://169.254.169.254/',
      'https://100.64.0.1/',
      'https://0.0.0.0/',
      'https://[::1]/',
      'https://[fd12::1]/',
      'https://[fe80::1]/',
      'https://[::ffff:10.0.0.1]/',
      'https://[::ffff:7f00:1]/',
      'https://rebind.example.com/',
      'https://inside6.example.com/',
      'https://printer.local/',
      'https://api.internal/',
      'https://nowhere.example.com/',
    ]) {
      await refused(production, url);
    }
  });

  it('the sandbox also takes http(s) on localhost, 127.0.0.1 and [::1], nothing else private', async () => {
    for (const url of ['http://localhost:8080/hooks', 'http://127.0.0.1:9/x', 'http://[::1]:9/x', 'https://localhost/x']) {
      expect(await sandbox.check(url)).toBe(new URL(url).toString());
    }
    expect(await sandbox.check('https://hooks.example.com/')).toBe('https://hooks.example.com/');
    for (const url of ['http://hooks.example.com/', 'http://10.0.0.1/', 'https://192.168.0.10/', 'http://127.0.0.2/', 'ws://localhost/']) {
      await refused(sandbox, url);
    }
  });

  it('refuses malformed URLs, credentials and fragments', async () => {
    for (const url of ['not a url', '/relative', 'https://user:pass@hooks.example.com/', 'https://hooks.example.com/#frag']) {
      await refused(production, url);
    }
  });

  it('classifies addresses', () => {
    expect(isPublicAddress('8.8.8.8')).toBe(true);
    expect(isPublicAddress('2001:4860:4860::8888')).toBe(true);
    expect(isPublicAddress('198.18.0.1')).toBe(false);
    expect(isPublicAddress('224.0.0.1')).toBe(false);
    expect(isPublicAddress('64:ff9b::a00:1')).toBe(false);
    expect(isPublicAddress('::ffff:8.8.8.8')).toBe(true);
    expect(isPublicAddress('hooks.example.com')).toBe(false);
  });
});
