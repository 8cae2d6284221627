import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

/**
 * Where webhooks may go, and how one is sent. Receivers are on the public internet: an
 * endpoint may not reach loopback, private, link-local (cloud metadata), shared (CGNAT),
 * multicast or reserved addresses, checked on the address actually connected to (the
 * name is resolved at delivery time and the connection made to the checked address, so
 * DNS rebinding cannot pass), unless the operator allows private targets
 * (`TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS=on`, for self-hosted receivers and tests). IPv6
 * forms that carry an IPv4 address (IPv4-mapped and -compatible, NAT64, 6to4, Teredo) are
 * judged by that address. Cloud metadata addresses stay refused even then, unless the
 * operator allows them too (`TALLY_WEBHOOK_ALLOW_METADATA_TARGETS=on`).
 */

/** What a deployment lets webhooks reach beyond the public internet (billing/webhooks/config.ts). */
export interface TargetPolicy {
  /** Loopback, private, link-local, reserved addresses and `localhost` names. */
  readonly allowPrivate: boolean;
  /** Cloud metadata addresses ({@link isMetadataAddress}); also needs `allowPrivate`. */
  readonly allowMetadata: boolean;
}

/** Why an attempt failed, as a short code: never the raw error (that would make `/v1/webhooks/test` a port scanner). */
export type DeliveryFailure = 'refused' | 'timeout' | 'tls' | 'dns' | 'blocked_address' | 'connection_failed' | 'status';

const FORBIDDEN = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  FORBIDDEN.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['64:ff9b:1::', 48], // NAT64 local use (RFC 8215): IPv4 embedded at varying places
  ['fc00::', 7], // unique local (fd00:ec2::254, the AWS metadata address, is here)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  FORBIDDEN.addSubnet(prefix, bits, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address (with `::` and a dotted IPv4 tail expanded). */
function groups(ip: string): number[] {
  let text = ip;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -dotted[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const middle = tail === undefined ? [] : new Array(8 - h.length - t.length).fill('0');
  return [...h, ...middle, ...t].map((g) => parseInt(g, 16));
}

/** Two 16-bit groups as a dotted IPv4 address. */
const dotted = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * Where an IPv4 address sits under a NAT64 prefix of each length that fits in
 * `64:ff9b:1::/48` (RFC 6052 section 2.2: bits 64-71 are skipped), as octet indexes.
 */
const NAT64_LOCAL_USE_OCTETS: readonly (readonly number[])[] = [
  [6, 7, 9, 10], // /48
  [7, 9, 10, 11], // /56
  [9, 10, 11, 12], // /64
  [12, 13, 14, 15], // /96
];

/** The IPv4 addresses a local-use NAT64 address (`64:ff9b:1::/48`, RFC 8215) may carry: one per prefix length. */
function nat64LocalUseIPv4s(g: number[]): string[] {
  const octet = (i: number) => (i % 2 === 0 ? g[i >> 1]! >> 8 : g[i >> 1]! & 255);
  return NAT64_LOCAL_USE_OCTETS.map((at) => at.map(octet).join('.'));
}

/**
 * The IPv4 addresses an IPv6 address carries, if any (pure): IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`), IPv4-compatible (`::a.b.c.d`, deprecated), NAT64 (`64:ff9b::/96`;
 * under the local-use `64:ff9b:1::/48` the operator picks the prefix length, so every place
 * one may put it: the last 32 bits for a /96), 6to4 (`2002:AABB:CCDD::/48`) and Teredo (`2001:0::/32`: the server's address, and the
 * client's, stored inverted).
 */
export function embeddedIPv4s(ip: string): string[] {
  const g = groups(ip);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return [dotted(g[6]!, g[7]!)];
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return [dotted(g[6]!, g[7]!)]; // IPv4-translated (SIIT)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return [dotted(g[6]!, g[7]!)];
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return nat64LocalUseIPv4s(g);
  if (zeros(0, 6) && (g[6]! !== 0 || g[7]! > 1)) return [dotted(g[6]!, g[7]!)];
  if (g[0] === 0x2002) return [dotted(g[1]!, g[2]!)];
  if (g[0] === 0x2001 && g[1] === 0) return [dotted(g[2]!, g[3]!), dotted(g[6]! ^ 0xffff, g[7]! ^ 0xffff)];
  return [];
}

/**
 * Whether a webhook may not connect to this address (anything that is not a public unicast
 * address). An IPv6 address is forbidden by its own range (`64:ff9b:1::/48` whole) or by an
 * IPv4 address it carries.
 */
export function isForbiddenAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 4) return FORBIDDEN.check(ip, 'ipv4');
  if (family === 6) return FORBIDDEN.check(ip, 'ipv6') || embeddedIPv4s(ip).some((a) => FORBIDDEN.check(a, 'ipv4'));
  return true;
}

const METADATA = new net.BlockList();
for (const a of [
  '169.254.169.254', // AWS, GCP, Azure, Oracle and others
  '169.254.170.2', // AWS ECS task credentials
  '100.100.100.200', // Alibaba Cloud
  '192.0.0.192', // Oracle Cloud (legacy metadata)
  '168.63.129.16', // Azure WireServer (a public address: refused under every policy)
]) {
  METADATA.addAddress(a, 'ipv4');
}
METADATA.addAddress('fd00:ec2::254', 'ipv6'); // AWS over IPv6

/** Whether this is a cloud metadata address, written as IPv4 or in an IPv6 form that carries one. */
export function isMetadataAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 4) return METADATA.check(ip, 'ipv4');
  if (family === 6) return METADATA.check(ip, 'ipv6') || embeddedIPv4s(ip).some((a) => METADATA.check(a, 'ipv4'));
  return false;
}

/** Whether a policy lets a webhook connect to this address. */
export function addressAllowed(ip: string, policy: TargetPolicy): boolean {
  if (isMetadataAddress(ip) && !(policy.allowPrivate && policy.allowMetadata)) return false;
  return policy.allowPrivate || !isForbiddenAddress(ip);
}

/** A URL's host as an address or name (`[::1]` -> `::1`; the URL parser already turned `2852039166` into `169.254.169.254`). */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Why a URL can never be a webhook target, or undefined: its host is a forbidden
 * address or a `localhost` name. Names are checked again, resolved, at every delivery.
 */
export function targetProblem(raw: string, policy: TargetPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an absolute http or https URL';
  if (url.username || url.password) return 'must not carry credentials (user:password@)';
  const host = hostOf(url).toLowerCase().replace(/\.$/, ''); // `localhost.` is `localhost`
  const literal = net.isIP(host) !== 0;
  if (!policy.allowPrivate && ((literal && isForbiddenAddress(host)) || host === 'localhost' || host.endsWith('.localhost'))) {
    return 'must not point at a loopback, private, link-local or reserved address (set TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS=on to allow them)';
  }
  // Also a public one (Azure WireServer), under every policy but both settings on.
  if (!(policy.allowPrivate && policy.allowMetadata) && literal && isMetadataAddress(host)) {
    return 'must not point at a cloud metadata address (set TALLY_WEBHOOK_ALLOW_METADATA_TARGETS=on, with TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS=on, to allow them)';
  }
  return undefined;
}

class BlockedAddressError extends Error {
  readonly code = 'EBLOCKED';
}

/** dns.lookup that refuses names resolving to any address the policy forbids; the connection goes to the checked address. */
const guardedLookup = (policy: TargetPolicy): net.LookupFunction => (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as dns.LookupAddress[];
    if (list.length === 0 || list.some((a) => !addressAllowed(a.address, policy))) {
      return callback(new BlockedAddressError(`${hostname} resolves to a forbidden address`) as NodeJS.ErrnoException, '', 0);
    }
    if ((options as dns.LookupOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};

interface PostResult {
  statusCode: number | null;
  error: DeliveryFailure | null;
}

/**
 * POSTs a webhook body: no redirects followed, the whole exchange bounded by `timeoutMs`.
 * A 2xx is a delivery; anything else a {@link DeliveryFailure}.
 */
export function postWebhook(rawUrl: string, body: string, headers: Record<string, string>, opts: { timeoutMs: number } & TargetPolicy): Promise<PostResult> {
  if (targetProblem(rawUrl, opts)) return Promise.resolve({ statusCode: null, error: 'blocked_address' });
  const url = new URL(rawUrl);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let timedOut = false;
    const done = (r: PostResult) => {
      clearTimeout(timer);
      resolve(r);
    };
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: false,
        ...(opts.allowPrivate && opts.allowMetadata ? {} : { lookup: guardedLookup(opts) }),
      },
      (res) => {
        const statusCode = res.statusCode ?? null;
        res.resume();
        res.once('end', () => done({ statusCode, error: statusCode !== null && statusCode >= 200 && statusCode < 300 ? null : 'status' }));
        res.once('error', () => done({ statusCode, error: timedOut ? 'timeout' : 'connection_failed' }));
        res.once('close', () => done({ statusCode, error: timedOut ? 'timeout' : 'connection_failed' }));
      },
    );
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy();
    }, opts.timeoutMs);
    req.once('error', (err) => done({ statusCode: null, error: timedOut ? 'timeout' : classify(err as NodeJS.ErrnoException) }));
    req.end(body);
  });
}

function classify(err: NodeJS.ErrnoException): DeliveryFailure {
  const code = err.code ?? '';
  if (code === 'EBLOCKED') return 'blocked_address';
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ENOTFOUND' || code.startsWith('EAI_')) return 'dns';
  if (code === 'ETIMEDOUT') return 'timeout';
  if (/^ERR_(TLS|SSL)|CERT|SELF_SIGNED|UNABLE_TO_VERIFY|HOSTNAME_MISMATCH/.test(code)) return 'tls';
  return 'connection_failed';
}
