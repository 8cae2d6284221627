import { BlockList, isIP } from 'node:net';

/**
 * The proxies whose forwarding headers are believed (TALLY_TRUSTED_PROXIES): addresses
 * and CIDR ranges, IPv4 or IPv6. Throws on an entry that is neither.
 */
export function trustedProxies(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const raw of entries) {
    const entry = raw.trim();
    const slash = entry.indexOf('/');
    const address = slash < 0 ? entry : entry.slice(0, slash);
    const family = isIP(address);
    if (family === 0) throw new Error(`${JSON.stringify(raw)} is not an IP address or CIDR range`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (slash < 0) {
      list.addAddress(address, type);
      continue;
    }
    const prefix = Number(entry.slice(slash + 1));
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) throw new Error(`${JSON.stringify(raw)} has no valid prefix length`);
    list.addSubnet(address, prefix, type);
  }
  return list;
}

/**
 * The client's address: the TCP peer's, unless the peer is a trusted proxy; then the
 * nearest address in its forwarding header (`X-Forwarded-For`, else `Forwarded`'s `for=`)
 * that is not itself a trusted proxy, read from the right (the end a client cannot forge).
 */
export function clientAddress(peer: string, headers: Readonly<Record<string, string | undefined>>, trusted: BlockList | undefined): string {
  let address = plain(peer);
  if (!trusted || !isTrusted(trusted, address)) return address;
  const hops = forwardedFor(headers);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = plain(hops[i]!);
    if (isIP(hop) === 0) return address; // garbage in the chain: stop at the last proxy we trust
    address = hop;
    if (!isTrusted(trusted, hop)) return hop;
  }
  return address;
}

function forwardedFor(headers: Readonly<Record<string, string | undefined>>): string[] {
  const xff = headers['x-forwarded-for'];
  if (xff) return xff.split(',').map((s) => s.trim()).filter(Boolean);
  const fwd = headers['forwarded'];
  if (!fwd) return [];
  const out: string[] = [];
  for (const element of fwd.split(',')) {
    for (const pair of element.split(';')) {
      const eq = pair.indexOf('=');
      if (eq < 0 || pair.slice(0, eq).trim().toLowerCase() !== 'for') continue;
      let v = pair.slice(eq + 1).trim().replace(/^"|"$/g, '');
      // RFC 7239: IPv6 in brackets, ports after them.
      const bracketed = /^\[([^\]]+)\]/.exec(v);
      if (bracketed) v = bracketed[1]!;
      else if (v.includes('.') && v.includes(':')) v = v.slice(0, v.indexOf(':'));
      out.push(v);
    }
  }
  return out;
}

/** An address without the IPv4-mapped IPv6 prefix (`::ffff:10.0.0.1` is 10.0.0.1). */
function plain(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

function isTrusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
