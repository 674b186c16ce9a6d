// The one key by which every per-address limit counts a peer (connections, phones, votes,
// reports, request rates, failed sign-ins, polling ids; doc/security.md). An IPv6 host picks its own
// interface identifier, and privacy addresses (RFC 8981) give one phone a new address whenever
// it likes, anywhere in its /64; what it cannot change is the /64 its network gave it (RFC 7421:
// a subnet is a /64). So an IPv6 address counts as its /64, and an IPv4-mapped IPv6 address
// (`::ffff:a.b.c.d`, how a dual-stack socket names an IPv4 peer) as the IPv4 address it holds.

import ipaddr from 'ipaddr.js';

const KEY_64_RE = /^[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){3}::\/64$/;

/**
 * The key of a peer's address for per-address limits: an IPv4 address as it is, an IPv6
 * address as its /64 prefix (`2001:db8:1:2::/64`), `::ffff:a.b.c.d` as `a.b.c.d`. A key gives
 * itself back; text that is not an address is its own key (a test's name for a peer, '').
 * @param {string | undefined | null} address
 * @returns {string}
 */
export function addressKey(address) {
  if (typeof address !== 'string' || address === '' || KEY_64_RE.test(address)) return address ?? '';
  // A link-local address may name its interface (`fe80::1%eth0`): the zone is not the peer.
  const bare = address.includes('%') ? address.slice(0, address.indexOf('%')) : address;
  if (!ipaddr.IPv6.isValid(bare)) return address;
  const ip = ipaddr.IPv6.parse(bare);
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address().toString();
  return `${ip.parts
    .slice(0, 4)
    .map((p) => p.toString(16))
    .join(':')}::/64`;
}
