import { describe, expect, it } from 'vitest';
import { clientAddress, trustedProxies } from './client-address.ts';

const lb = trustedProxies(['10.0.0.0/8', '192.168.1.5', 'fd00::/8']);

describe('clientAddress', () => {
  it.each([
    ['no trusted proxies: the peer, whatever the headers say', '10.1.2.3', { 'x-forwarded-for': '203.0.113.7' }, undefined, '10.1.2.3'],
    ['an untrusted peer cannot name another client', '198.51.100.9', { 'x-forwarded-for': '203.0.113.7' }, lb, '198.51.100.9'],
    ['a trusted peer: the last hop of X-Forwarded-For', '10.1.2.3', { 'x-forwarded-for': '203.0.113.7' }, lb, '203.0.113.7'],
    ['read from the right: a client-forged first entry is ignored', '10.1.2.3', { 'x-forwarded-for': '1.1.1.1, 203.0.113.7' }, lb, '203.0.113.7'],
    ['trusted hops are skipped', '10.1.2.3', { 'x-forwarded-for': '203.0.113.7, 192.168.1.5, 10.9.9.9' }, lb, '203.0.113.7'],
    ['IPv4-mapped IPv6 peers are IPv4', '::ffff:10.1.2.3', { 'x-forwarded-for': '203.0.113.7' }, lb, '203.0.113.7'],
    ['Forwarded (RFC 7239), with a port', '10.1.2.3', { forwarded: 'for=192.0.2.60:4711;proto=http;by=203.0.113.43' }, lb, '192.0.2.60'],
    ['Forwarded IPv6 in brackets, several elements', '10.1.2.3', { forwarded: 'for=198.51.100.1, for="[2001:db8:cafe::17]:4711"' }, lb, '2001:db8:cafe::17'],
    ['a trusted peer without a header: the peer', '10.1.2.3', {}, lb, '10.1.2.3'],
    ['garbage in the chain: the last trusted hop', '10.1.2.3', { 'x-forwarded-for': 'unknown' }, lb, '10.1.2.3'],
    ['an IPv6 proxy range', 'fd00::1', { 'x-forwarded-for': '2001:db8::1' }, lb, '2001:db8::1'],
  ])('%s', (_name, peer, headers, trusted, expected) => {
    expect(clientAddress(peer, headers as Record<string, string>, trusted)).toBe(expected);
  });

  it.each([['proxy.internal'], ['10.0.0.0/33'], ['fd00::/129'], ['10.0.0.0/x']])('refuses %s as a trusted proxy', (entry) => {
    expect(() => trustedProxies([entry])).toThrow(/not an IP address|prefix length/);
  });
});
