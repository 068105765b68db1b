import { lookup } from 'node:dns/promises';
import net from 'node:net';

/** An address a webhook may not reach, and why, in words an operator understands. */
const BLOCKED_V4: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a carrier-grade NAT (shared) address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address (this includes the cloud metadata service)'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'an IETF protocol assignment address'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'],
];
const BLOCKED_V6: Array<[string, number, string]> = [
  ['::', 128, 'an unspecified address'],
  ['::1', 128, 'a loopback address'],
  ['100::', 64, 'a discard-only address'],
  ['2001:db8::', 32, 'a documentation address'],
  ['fc00::', 7, 'a private (unique local) address'],
  ['fe80::', 10, 'a link-local address'],
  // Deprecated (RFC 3879), but a network that still routes it routes it inside.
  ['fec0::', 10, 'a site-local address'],
  ['ff00::', 8, 'a multicast address'],
];

function buildList(): Map<string, net.BlockList> {
  const lists = new Map<string, net.BlockList>();
  for (const [family, rules] of [
    ['ipv4', BLOCKED_V4],
    ['ipv6', BLOCKED_V6],
  ] as const) {
    for (const [network, prefix, reason] of rules) {
      const list = lists.get(reason) ?? new net.BlockList();
      list.addSubnet(network, prefix, family);
      lists.set(reason, list);
    }
  }
  return lists;
}
const BLOCK_LISTS = buildList();

/**
 * IPv6 ranges that carry an IPv4 address: where its 4 bytes sit, whether they are stored
 * inverted, and the form's name for the refusal message. Contract (Faults and hostile input):
 * such an address is judged by the IPv4 address inside it.
 *
 * Teredo (RFC 4380) is not required by the contract; we judge it too. A relay sends packets for
 * a Teredo address as UDP to the client's IPv4 address (stored inverted), and the server's is in
 * it as well: a crafted address naming a private one could make a relay inside the network send
 * there, and a real Teredo address holds public addresses only, so refusing costs nothing.
 */
const EMBEDDINGS = (
  [
    ['::ffff:0:0', 96, 12, false, 'IPv4-mapped'],
    ['::ffff:0:0:0', 96, 12, false, 'IPv4-translated'],
    ['::', 96, 12, false, 'IPv4-compatible'],
    ['64:ff9b::', 96, 12, false, 'NAT64'],
    ['64:ff9b:1::', 48, 12, false, 'NAT64 local-use'],
    ['2002::', 16, 2, false, '6to4'],
    ['2001::', 32, 4, false, 'Teredo server'],
    ['2001::', 32, 12, true, 'Teredo client'],
  ] as const
).map(([prefix, length, offset, inverted, form]) => ({
  network: parseIPv6(prefix)!.subarray(0, length / 8),
  offset,
  inverted,
  form,
}));

/** The 16 bytes of an IPv6 address in any textual form, or undefined when it is not one. */
function parseIPv6(text: string): Uint8Array | undefined {
  // A zone id (`fe80::1%eth0`) names an interface, not part of the address. URLs cannot carry
  // one (WHATWG refuses `%` in a host), but a resolver may answer with one.
  const address = text.split('%')[0]!;
  if (!net.isIPv6(address)) return undefined;
  const groupsOf = (part: string | undefined): number[] =>
    !part
      ? []
      : part.split(':').flatMap((group) => {
          if (!net.isIPv4(group)) return [Number.parseInt(group, 16)];
          const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head, tail] = address.split('::');
  const before = groupsOf(head);
  const after = groupsOf(tail);
  const groups = [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
  return Uint8Array.from(groups.flatMap((group) => [group >> 8, group & 255]));
}

/** The IPv4 addresses an IPv6 address carries, each with the name of its form. */
function embeddedIPv4(bytes: Uint8Array): Array<{ address: string; form: string }> {
  // `::` and `::1` lie in `::/96` but are IPv6's own unspecified and loopback addresses.
  if (bytes.subarray(0, 15).every((byte) => byte === 0) && bytes[15]! <= 1) return [];
  return EMBEDDINGS.filter(({ network }) => network.every((byte, i) => byte === bytes[i])).map(
    ({ offset, inverted, form }) => ({
      address: bytes
        .subarray(offset, offset + 4)
        .map((byte) => (inverted ? byte ^ 255 : byte))
        .join('.'),
      form,
    }),
  );
}

/** Why `address` must not be reached, or undefined when it is a public address. */
export function forbiddenReason(address: string): string | undefined {
  if (net.isIPv4(address)) return listedReason(address, 'ipv4');
  const bytes = parseIPv6(address);
  if (!bytes) return 'not an IP address';
  for (const inner of embeddedIPv4(bytes)) {
    const reason = listedReason(inner.address, 'ipv4');
    if (reason) return `${reason} (${inner.address} in ${inner.form} form)`;
  }
  return listedReason(address.split('%')[0]!, 'ipv6');
}

function listedReason(address: string, family: 'ipv4' | 'ipv6'): string | undefined {
  for (const [reason, list] of BLOCK_LISTS) if (list.check(address, family)) return reason;
  return undefined;
}

/**
 * A webhook URL that may not be used, with the sentence that says why. `unresolved`: its host
 * did not resolve, which may pass, unlike a refused address.
 */
export class WebhookAddressError extends Error {
  readonly unresolved: boolean;
  constructor(message: string, unresolved = false) {
    super(message);
    this.name = 'WebhookAddressError';
    this.unresolved = unresolved;
  }
}

export interface ResolvedTarget {
  url: URL;
  /** The checked address the connection must go to (DNS is not asked again). */
  address: string;
  family: 4 | 6;
}

/** One address a host resolves to, as `dns.lookup` gives it. */
interface HostAddress {
  address: string;
  family: number;
}

export type Resolver = (hostname: string) => Promise<HostAddress[]>;

const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/**
 * The check made when a webhook URL is set: http(s) only, and unless private addresses are
 * allowed, no address the host resolves to may be private. A host that does not resolve now
 * is accepted: it resolves to nothing forbidden, and every send checks again (contract:
 * "refused when set and again when sent"). With private addresses allowed, DNS is not asked.
 */
export async function checkWebhookUrl(
  rawUrl: string,
  options: { allowPrivate: boolean; resolve?: Resolver },
): Promise<void> {
  const { host } = parseWebhookUrl(rawUrl);
  if (options.allowPrivate) return;
  let addresses: HostAddress[];
  try {
    addresses = await addressesOf(host, options.resolve);
  } catch {
    return;
  }
  refuseForbidden(addresses);
}

/**
 * The check made at every send: as `checkWebhookUrl`, and the host must resolve. Returns the
 * address to connect to, so the socket goes where the check looked (no second DNS answer can
 * slip in between).
 */
export async function resolveWebhookTarget(
  rawUrl: string,
  options: { allowPrivate: boolean; resolve?: Resolver },
): Promise<ResolvedTarget> {
  const { url, host } = parseWebhookUrl(rawUrl);
  let addresses: HostAddress[];
  try {
    addresses = await addressesOf(host, options.resolve);
  } catch {
    throw new WebhookAddressError(`The webhook host "${host}" could not be resolved.`, true);
  }
  if (addresses.length === 0)
    throw new WebhookAddressError(`The webhook host "${host}" has no address.`, true);
  if (!options.allowPrivate) refuseForbidden(addresses);
  const chosen = addresses[0]!;
  return { url, address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}

function parseWebhookUrl(rawUrl: string): { url: URL; host: string } {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new WebhookAddressError('The webhook URL is not an absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebhookAddressError('The webhook URL must use https: or http:.');
  }
  if (url.username || url.password)
    throw new WebhookAddressError('The webhook URL must not contain credentials.');
  return { url, host: url.hostname.replace(/^\[|\]$/g, '') };
}

async function addressesOf(host: string, resolve: Resolver | undefined): Promise<HostAddress[]> {
  if (net.isIP(host)) return [{ address: host, family: net.isIPv4(host) ? 4 : 6 }];
  return (resolve ?? systemResolver)(host);
}

function refuseForbidden(addresses: HostAddress[]): void {
  for (const { address } of addresses) {
    const reason = forbiddenReason(address);
    if (reason) {
      throw new WebhookAddressError(
        `The webhook URL resolves to ${address}, ${reason}; set FOLIO_WEBHOOK_ALLOW_PRIVATE=true to allow private addresses.`,
      );
    }
  }
}
