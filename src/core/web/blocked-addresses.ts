/**
 * Which IP addresses web_fetch refuses to connect to (issue 36): loopback, private networks,
 * link-local (with the cloud metadata address 169.254.169.254 and fd00:ec2::254), unspecified,
 * multicast, reserved and documentation ranges — and the IPv6 spellings that carry an IPv4
 * address inside (IPv4-mapped ::ffff:127.0.0.1, IPv4-compatible, NAT64, 6to4), judged by the
 * address they carry. A page on the internet must not make the agent read the user's router,
 * a service on their machine or the cloud's credentials endpoint.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** An IPv4 range: first octets as a number and the prefix length. */
interface Ipv4Range {
  base: number;
  bits: number;
  why: string;
}

const v4 = (dotted: string, bits: number, why: string): Ipv4Range => ({ base: ipv4Number(dotted)!, bits, why });

/** Most specific first: the metadata address is named as such, not as link-local. */
const IPV4_BLOCKED: readonly Ipv4Range[] = [
  v4('169.254.169.254', 32, 'the cloud metadata address'),
  v4('0.0.0.0', 8, 'an unspecified ("this network") address'),
  v4('10.0.0.0', 8, 'a private address'),
  v4('100.64.0.0', 10, 'a shared (carrier-grade NAT) address'),
  v4('127.0.0.0', 8, 'a loopback address'),
  v4('169.254.0.0', 16, 'a link-local address'),
  v4('172.16.0.0', 12, 'a private address'),
  v4('192.0.0.0', 24, 'a reserved address'),
  v4('192.0.2.0', 24, 'a documentation address'),
  v4('192.168.0.0', 16, 'a private address'),
  v4('198.18.0.0', 15, 'a benchmarking address'),
  v4('198.51.100.0', 24, 'a documentation address'),
  v4('203.0.113.0', 24, 'a documentation address'),
  v4('224.0.0.0', 4, 'a multicast address'),
  v4('240.0.0.0', 4, 'a reserved address'),
];

/**
 * Why `address` may not be fetched from, in words ("a loopback address"); undefined for an
 * address on the public internet. Anything that is not a well-formed IP address is refused too.
 */
export function blockedAddressReason(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return ipv4Reason(ipv4Number(bare)!);
  if (isIPv6(bare)) return ipv6Reason(ipv6Hextets(bare));
  return 'not an IP address';
}

function ipv4Reason(value: number): string | undefined {
  for (const range of IPV4_BLOCKED) {
    const mask = range.bits === 0 ? 0 : (~0 << (32 - range.bits)) >>> 0;
    if ((value & mask) >>> 0 === (range.base & mask) >>> 0) return range.why;
  }
  return undefined;
}

function ipv6Reason(hextets: number[]): string | undefined {
  const [first = 0, second = 0] = hextets;
  const zeroUpTo = (count: number) => hextets.slice(0, count).every((part) => part === 0);
  const embedded = (from: number) => ((hextets[from]! << 16) | hextets[from + 1]!) >>> 0;
  if (zeroUpTo(8)) return 'the unspecified address';
  if (zeroUpTo(7) && hextets[7] === 1) return 'a loopback address';
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible): the IPv4 address inside decides.
  if (zeroUpTo(5) && hextets[5] === 0xffff) return carried(embedded(6));
  // ::ffff:0:a.b.c.d (IPv4-translated, SIIT): a translator sends it to the IPv4 address inside.
  if (zeroUpTo(4) && hextets[4] === 0xffff && hextets[5] === 0) return carried(embedded(6));
  if (zeroUpTo(6)) return 'an IPv4-compatible address';
  // NAT64 for the local network (64:ff9b:1::/48): where the IPv4 address sits is the network's choice.
  if (first === 0x64 && second === 0xff9b && hextets[2] === 1) return 'a local-use NAT64 address';
  // NAT64 (64:ff9b::/96): translated to the IPv4 address in its last 32 bits.
  if (first === 0x64 && second === 0xff9b) return carried(embedded(6));
  // 6to4 (2002::/16): the IPv4 address of the relay is in bits 16–47.
  if (first === 0x2002) return carried(embedded(1));
  if (first === 0x2001 && second === 0) return 'a Teredo address';
  if (first === 0x2001 && second === 0x0db8) return 'a documentation address';
  if (first === 0x0100 && hextets.slice(1, 4).every((part) => part === 0)) return 'a discard address';
  if (first === 0xfd00 && second === 0x0ec2 && hextets[7] === 0x254 && hextets.slice(2, 7).every((part) => part === 0))
    return 'the cloud metadata address';
  if ((first & 0xfe00) === 0xfc00) return 'a private (unique local) address';
  if ((first & 0xffc0) === 0xfe80) return 'a link-local address';
  if ((first & 0xffc0) === 0xfec0) return 'a site-local address';
  if ((first & 0xff00) === 0xff00) return 'a multicast address';
  return undefined;
}

function carried(value: number): string | undefined {
  const reason = ipv4Reason(value);
  return reason && `${reason} (inside an IPv6 address)`;
}

function ipv4Number(dotted: string): number | undefined {
  const parts = dotted.split('.').map(Number);
  if (parts.length !== 4 || parts.some((part) => !Number.isInteger(part) || part < 0 || part > 255)) return undefined;
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 split). */
function ipv6Hextets(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const value = ipv4Number(dotted[1]!) ?? 0;
    text = `${text.slice(0, dotted.index)}${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headParts = head ? head.split(':') : [];
  const tailParts = tail ? tail.split(':') : [];
  const missing = 8 - headParts.length - tailParts.length;
  const all = tail === undefined ? headParts : [...headParts, ...Array<string>(missing).fill('0'), ...tailParts];
  return all.map((part) => parseInt(part, 16) || 0);
}
