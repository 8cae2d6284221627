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
 * (`TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS=on`, for self-hosted receivers and tests).
 */

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

/** The IPv4 address an IPv6 address carries (IPv4-mapped, IPv4-compatible, NAT64), if any. */
function embeddedIPv4(ip: string): string | undefined {
  const g = groups(ip);
  const v4 = () => `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(5) && g[5] === 0xffff) return v4(); // ::ffff:a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return v4(); // 64:ff9b::/96
  if (zeros(6) && (g[6]! !== 0 || g[7]! > 1)) return v4(); // ::a.b.c.d (deprecated)
  return undefined;
}

/** Whether a webhook may not connect to this address (anything that is not a public unicast address). */
export function isForbiddenAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 4) return FORBIDDEN.check(ip, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIPv4(ip);
    return v4 !== undefined ? FORBIDDEN.check(v4, 'ipv4') : FORBIDDEN.check(ip, 'ipv6');
  }
  return true;
}

/** A URL's host as an address or name (`[::1]` -> `::1`; the URL parser already turned `2852039166` into `169.254.169.254`). */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Why a URL can never be a webhook target, or undefined: its host is a forbidden
 * address or a `localhost` name. Names are checked again, resolved, at every delivery.
 */
export function targetProblem(raw: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an absolute http or https URL';
  if (url.username || url.password) return 'must not carry credentials (user:password@)';
  if (allowPrivate) return undefined;
  const host = hostOf(url).toLowerCase().replace(/\.$/, ''); // `localhost.` is `localhost`
  if ((net.isIP(host) && isForbiddenAddress(host)) || host === 'localhost' || host.endsWith('.localhost')) {
    return 'must not point at a loopback, private, link-local or reserved address (set TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS=on to allow them)';
  }
  return undefined;
}

class BlockedAddressError extends Error {
  readonly code = 'EBLOCKED';
}

/** dns.lookup that refuses names resolving to any forbidden address; the connection goes to the checked address. */
const guardedLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as dns.LookupAddress[];
    if (list.length === 0 || list.some((a) => isForbiddenAddress(a.address))) {
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
export function postWebhook(rawUrl: string, body: string, headers: Record<string, string>, opts: { timeoutMs: number; allowPrivate: boolean }): Promise<PostResult> {
  if (targetProblem(rawUrl, opts.allowPrivate)) return Promise.resolve({ statusCode: null, error: 'blocked_address' });
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
        ...(opts.allowPrivate ? {} : { lookup: guardedLookup }),
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
