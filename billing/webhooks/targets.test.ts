import { afterEach, describe, expect, it, vi } from 'vitest';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../../shared/config/parse.ts';
import { parseWebhookConfig } from './config.ts';
import { addressAllowed, embeddedIPv4s, isForbiddenAddress, isMetadataAddress, postWebhook, targetProblem } from './targets.ts';

const PUBLIC = { allowPrivate: false, allowMetadata: false };
const PRIVATE = { allowPrivate: true, allowMetadata: false };
const ALL = { allowPrivate: true, allowMetadata: true };

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
      expect(targetProblem(url, PUBLIC), url).toMatch(/loopback, private/);
      expect(targetProblem(url, ALL), url).toBeUndefined();
    }
    expect(targetProblem('https://hooks.example.com/tally', PUBLIC)).toBeUndefined();
    expect(targetProblem('ftp://example.com/', PUBLIC)).toMatch(/http or https/);
    expect(targetProblem('https://user:pw@example.com/', PRIVATE)).toMatch(/credentials/);
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
        expect(targetProblem(url, PUBLIC)).toBeUndefined(); // a name passes on create
        const res = await postWebhook(url, '{}', {}, { timeoutMs: 2000, ...PUBLIC });
        expect(res).toEqual({ statusCode: null, error: 'blocked_address' });
        expect(lookup).toHaveBeenCalledTimes(1);
        expect(hits).toEqual([]);
      } finally {
        server.close();
      }
    });
  });
});

describe('IPv6 forms carrying an IPv4 address, and cloud metadata addresses', () => {
  it.each([
    ['::ffff:10.0.0.1', ['10.0.0.1']],
    ['::10.0.0.1', ['10.0.0.1']],
    ['64:ff9b::a00:1', ['10.0.0.1']],
    ['2002:a9fe:a9fe::1', ['169.254.169.254']],
    ['2002:7f00:1:5::', ['127.0.0.1']],
    // Teredo: server 65.54.227.120, client 192.168.1.1 stored inverted (3f57:fefe).
    ['2001:0:4136:e378:8000:63bf:3f57:fefe', ['65.54.227.120', '192.168.1.1']],
    ['2606:4700::6810:85e5', []],
  ])('%s carries %j', (ip, v4) => {
    expect(embeddedIPv4s(ip)).toEqual(v4);
  });

  it.each([
    '2002:a9fe:a9fe::', '2002:0a00:0001::1', '2002:7f00:1::', '2002:c0a8:0101:1::1', // 6to4 of 169.254.169.254, 10.0.0.1, 127.0.0.1, 192.168.1.1
    '64:ff9b::7f00:1', '64:ff9b::10.0.0.1', '64:ff9b:1::a00:1', // NAT64 (and its local-use prefix)
    '2001:0:4136:e378:8000:63bf:3f57:fefe', // Teredo with a private client
    '2001:0:a9fe:a9fe::1', // Teredo with a link-local server
    '::169.254.169.254', '::ffff:169.254.169.254', '::ffff:0:a9fe:a9fe',
  ])('refuses the transition form %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each(['2002:808:808::1', '2001:0:4136:e378:8000:63bf:f7f7:f7f7', '64:ff9b::808:808'])('allows %s (public IPv4 inside)', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(false);
  });

  it.each(['169.254.169.254', 'fd00:ec2::254', 'fd00:ec2:0::254', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '64:ff9b::a9fe:a9fe', '2002:a9fe:a9fe::', '::169.254.169.254', '169.254.170.2', '100.100.100.200'])(
    'private targets allowed, %s stays refused unless metadata targets are allowed too',
    (ip) => {
      expect(isMetadataAddress(ip)).toBe(true);
      expect(addressAllowed(ip, PUBLIC)).toBe(false);
      expect(addressAllowed(ip, PRIVATE)).toBe(false);
      expect(addressAllowed(ip, ALL)).toBe(true);
      expect(addressAllowed(ip, { allowPrivate: false, allowMetadata: true })).toBe(false);
    },
  );

  it.each([
    ['64:ff9b:1::a9fe:a9fe', '169.254.169.254 behind local-use NAT64 with a /96 prefix (RFC 8215)'],
    ['64:ff9b:1:a9fe:a9:fe00::', 'the same behind a /48 prefix (RFC 6052: bits 64-71 skipped)'],
    ['64:ff9b:1:7:a9:fea9:fe00:0', 'the same behind a /64 prefix'],
    ['192.0.0.192', 'Oracle Cloud legacy metadata'],
    ['168.63.129.16', 'Azure WireServer'],
    ['::ffff:168.63.129.16', 'Azure WireServer, IPv4-mapped'],
  ])('%s (%s) is a metadata address under every policy but both settings on', (ip) => {
    expect(isMetadataAddress(ip)).toBe(true);
    for (const policy of [PUBLIC, PRIVATE, { allowPrivate: false, allowMetadata: true }]) {
      expect(addressAllowed(ip, policy)).toBe(false);
      expect(targetProblem(`http://${ip.includes(':') ? `[${ip}]` : ip}/`, policy)).toBeDefined();
    }
    expect(targetProblem(`http://${ip.includes(':') ? `[${ip}]` : ip}/`, PRIVATE)).toMatch(/cloud metadata.*TALLY_WEBHOOK_ALLOW_METADATA_TARGETS=on/);
    expect(addressAllowed(ip, ALL)).toBe(true);
  });

  it('local-use NAT64 (64:ff9b:1::/48) stays refused whole, whatever IPv4 it carries; its IPv4 places', () => {
    expect(embeddedIPv4s('64:ff9b:1::a9fe:a9fe')).toEqual(['0.0.0.0', '0.0.0.0', '0.0.0.169', '169.254.169.254']);
    expect(isForbiddenAddress('64:ff9b:1::808:808')).toBe(true);
    expect(addressAllowed('64:ff9b:1::808:808', PRIVATE)).toBe(true);
    expect(isMetadataAddress('64:ff9b:1::808:808')).toBe(false);
  });

  it('private targets allowed: loopback and private addresses pass, metadata URLs are refused naming the setting', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '169.254.1.1', 'fd00::1']) expect(addressAllowed(ip, PRIVATE), ip).toBe(true);
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://[fd00:ec2::254]/', 'http://[::ffff:169.254.169.254]/', 'http://[2002:a9fe:a9fe::]/', 'http://2852039166/']) {
      expect(targetProblem(url, PRIVATE), url).toMatch(/cloud metadata.*TALLY_WEBHOOK_ALLOW_METADATA_TARGETS=on/);
    }
    expect(targetProblem('http://127.0.0.1:9000/hook', PRIVATE)).toBeUndefined();
  });

  describe('a name resolving to a metadata address, private targets allowed', () => {
    afterEach(() => vi.restoreAllMocks());
    it.each([['169.254.169.254'], ['fd00:ec2::254'], ['::ffff:169.254.169.254']])('%s is blocked at delivery without connecting', async (address) => {
      const lookup = vi.spyOn(dns, 'lookup').mockImplementation(((_h: string, _o: unknown, cb: (e: null, a: dns.LookupAddress[]) => void) =>
        cb(null, [{ address, family: address.includes(':') ? 6 : 4 }])) as never);
      const res = await postWebhook('http://metadata.example.internal/x', '{}', {}, { timeoutMs: 2000, ...PRIVATE });
      expect(res).toEqual({ statusCode: null, error: 'blocked_address' });
      expect(lookup).toHaveBeenCalledTimes(1);
    });
  });
});

describe('webhook config', () => {
  it('refuses metadata targets unless TALLY_WEBHOOK_ALLOW_METADATA_TARGETS=on', () => {
    expect(parseWebhookConfig({ TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on' }).allowMetadataTargets).toBe(false);
    expect(parseWebhookConfig({ TALLY_WEBHOOK_ALLOW_METADATA_TARGETS: 'on' }).allowMetadataTargets).toBe(true);
    expect(() => parseWebhookConfig({ TALLY_WEBHOOK_ALLOW_METADATA_TARGETS: 'yes' })).toThrow(/TALLY_WEBHOOK_ALLOW_METADATA_TARGETS/);
  });

  it('refuses private targets unless TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS=on; a bad value names the variable', () => {
    expect(parseWebhookConfig({}).allowPrivateTargets).toBe(false);
    expect(parseWebhookConfig({ TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'off' }).allowPrivateTargets).toBe(false);
    expect(parseWebhookConfig({ TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on' }).allowPrivateTargets).toBe(true);
    expect(() => parseWebhookConfig({ TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' })).toThrow(ConfigError);
    expect(() => parseWebhookConfig({ TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' })).toThrow(/TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS/);
  });
});
