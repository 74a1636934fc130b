import { describe, expect, it } from 'vitest';
import { checkHookUrl, checkHookUrlResolved } from '../../src/webhooks/address.js';
import { isPublicAddress } from '../../src/net/address.js';
import { signature } from '../../src/webhooks/delivery.js';
import { MAX_ATTEMPTS, retryDelayMs } from '../../src/jobs/outbox.js';
import { loadConfig } from '../../src/config.js';

describe('webhook addresses', () => {
  it.each([
    '127.0.0.1', '127.255.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.100.100.200',
    '0.0.0.0', '224.0.0.251', '255.255.255.255', '192.0.0.192', '::1', '::', 'fe80::1', 'fc00::1', 'fd00:ec2::254', 'ff02::1',
    '::ffff:127.0.0.1', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '64:ff9b::7f00:1', '2002:7f00:1::', 'not-an-ip',
    // IPv4-compatible (deprecated), outside 2000::/3 as every address but global unicast is.
    '::127.0.0.1', '::7f00:1', '::a9fe:a9fe', '4000::1', 'e000::1',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('checks the scheme always and the address unless private addresses are allowed', () => {
    expect(checkHookUrl('https://hooks.slack.com/services/T/B/X', false)).toBeNull();
    expect(checkHookUrl('file:///etc/passwd', true)).toMatch(/http or https/);
    expect(checkHookUrl('http://127.0.0.1:8080/', false)).toMatch(/non-public/);
    expect(checkHookUrl('http://[::ffff:7f00:1]/', false)).toMatch(/non-public/);
    expect(checkHookUrl('http://[::127.0.0.1]/', false)).toMatch(/non-public/);
    expect(checkHookUrl('http://LOCALHOST./', false)).toMatch(/localhost/);
    expect(checkHookUrl('http://127.0.0.1:8080/', true)).toBeNull();
  });

  it('refuses at creation a name that resolves only to non-public addresses', async () => {
    const resolver = (addresses: string[]) => async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    expect(await checkHookUrlResolved('http://intranet.example/', false, resolver(['10.0.0.5', 'fd00::5']))).toBe('resolves only to non-public addresses; set SERVICE_WEBHOOK_ALLOW_PRIVATE=true to allow it');
    expect(await checkHookUrlResolved('http://intranet.example/', true, resolver(['10.0.0.5']))).toBeNull();
    // One public address is enough: delivery connects only to the public ones.
    expect(await checkHookUrlResolved('http://mixed.example/', false, resolver(['10.0.0.5', '93.184.215.14']))).toBeNull();
    // Not resolvable (yet): accepted, and checked again at delivery.
    expect(await checkHookUrlResolved('https://later.example/hook', false, async () => {
      throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    })).toBeNull();
    // localhost is refused by its name, before any lookup.
    expect(await checkHookUrlResolved('http://localhost./', false)).toMatch(/localhost/);
  });

  it('is off by default and switched by SERVICE_WEBHOOK_ALLOW_PRIVATE', () => {
    expect(loadConfig({}).webhookAllowPrivate).toBe(false);
    expect(loadConfig({ SERVICE_WEBHOOK_ALLOW_PRIVATE: 'true' }).webhookAllowPrivate).toBe(true);
  });
});

describe('webhook retries', () => {
  it('start fast and grow to hours, 12 attempts over about a day', () => {
    const mid = () => 0.5;
    expect(retryDelayMs(1, mid)).toBe(10_000);
    expect(retryDelayMs(1, mid) + retryDelayMs(2, mid)).toBeLessThan(60_000);
    const gaps = Array.from({ length: MAX_ATTEMPTS - 1 }, (_, i) => retryDelayMs(i + 1, mid));
    for (let i = 1; i < gaps.length; i++) expect(gaps[i]).toBeGreaterThanOrEqual(gaps[i - 1]!);
    expect(gaps.at(-1)).toBeGreaterThanOrEqual(3_600_000);
    const hours = gaps.reduce((a, b) => a + b, 0) / 3_600_000;
    expect(hours).toBeGreaterThan(20);
    expect(hours).toBeLessThan(28);
  });

  it('spread by jitter, and even at its extremes the third attempt comes within a minute', () => {
    expect(retryDelayMs(1, () => 0)).toBe(8_000);
    expect(retryDelayMs(1, () => 1)).toBe(12_000);
    expect(retryDelayMs(1, () => 1) + retryDelayMs(2, () => 1)).toBeLessThanOrEqual(60_000);
  });
});

describe('webhook signatures', () => {
  // The example GitHub documents for X-Hub-Signature-256, the scheme ours follows.
  it('match GitHub’s documented test vector', () => {
    expect(signature("It's a Secret to Everybody", 'Hello, World!'))
      .toBe('sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17');
  });
});
