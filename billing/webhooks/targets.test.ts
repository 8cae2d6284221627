import { afterEach, describe, expect, it, vi } from 'vitest';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../../shared/config/parse.ts';
import { parseWebhookConfig } from './config.ts';
import { isForbiddenAddress, postWebhook, targetProblem } from './targets.ts';

describe('webhook targets', () => {
  it.each([
    '127.0.0.1', '127.1.2.3', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255',
    '::', '::1', 'fd00:ec2::254', 'fc00::1', 'fe80::1', 'ff02::1', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '::ffff:127.0.0.1', '64:ff9b::a9fe:a9fe', '::127.0.0.1', '2001:db8::1',
  ])('refuses %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::6810:85e5', '::ffff:8.8.8.8', '64:ff9b::808:808'])('allows %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(false);
  });

  it('refuses literal forbidden hosts in URLs in every spelling, unless private targets are allowed', () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00:ec2::254]/',
      'http://[::ffff:169.254.169.254]/',
      'http://2852039166/',
      'http://0xa9fea9fe/',
      'http://0251.0376.0251.0376/',
      'http://127.1/',
      'http://localhost:8080/',
      'http://api.localhost/',
      'http://localhost./',
      'http://API.LOCALHOST./x',
      'https://[::1]:8443/x',
    ]) {
      expect(targetProblem(url, false), url).toMatch(/loopback, private/);
      expect(targetProblem(url, true), url).toBeUndefined();
    }
    expect(targetProblem('https://hooks.example.com/tally', false)).toBeUndefined();
    expect(targetProblem('ftp://example.com/', false)).toMatch(/http or https/);
    expect(targetProblem('https://user:pw@example.com/', true)).toMatch(/credentials/);
  });

  describe('at delivery, the name is resolved once and every address checked (DNS rebinding)', () => {
    afterEach(() => vi.restoreAllMocks());
    /** dns.lookup answering `addresses` for every name, counting its calls. */
    function resolvesTo(...addresses: string[]) {
      return vi.spyOn(dns, 'lookup').mockImplementation(((_host: string, _opts: unknown, cb: (err: null, a: dns.LookupAddress[]) => void) =>
        cb(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })))) as never);
    }

    it.each([['127.0.0.1'], ['169.254.169.254'], ['8.8.8.8', '10.0.0.1'], ['::ffff:169.254.169.254'], ['fd00:ec2::254']])('refuses a name resolving to %s without connecting', async (...addresses) => {
      const server = http.createServer((_q, s) => s.writeHead(204).end());
      const hits: string[] = [];
      server.on('request', (q) => hits.push(q.url ?? ''));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const lookup = resolvesTo(...addresses);
      try {
        const url = `http://rebound.example.com:${(server.address() as AddressInfo).port}/x`;
        expect(targetProblem(url, false)).toBeUndefined(); // a name passes on create
        const res = await postWebhook(url, '{}', {}, { timeoutMs: 2000, allowPrivate: false });
        expect(res).toEqual({ statusCode: null, error: 'blocked_address' });
        expect(lookup).toHaveBeenCalledTimes(1);
        expect(hits).toEqual([]);
      } finally {
        server.close();
      }
    });
  });
});

describe('webhook config', () => {
  it('refuses private targets unless TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS=on; a bad value names the variable', () => {
    expect(parseWebhookConfig({}).allowPrivateTargets).toBe(false);
    expect(parseWebhookConfig({ TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'off' }).allowPrivateTargets).toBe(false);
    expect(parseWebhookConfig({ TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on' }).allowPrivateTargets).toBe(true);
    expect(() => parseWebhookConfig({ TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' })).toThrow(ConfigError);
    expect(() => parseWebhookConfig({ TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' })).toThrow(/TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS/);
  });
});
