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
  ['fc00::', 7, 'a private (unique local) address'],
  ['fe80::', 10, 'a link-local address'],
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

/** The IPv4 address carried inside an IPv6 one (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`). */
function embeddedIPv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const high = Number.parseInt(hex[1]!, 16);
  const low = Number.parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Why `address` must not be reached, or undefined when it is a public address. */
export function forbiddenReason(address: string): string | undefined {
  const inner = embeddedIPv4(address);
  if (inner) return forbiddenReason(inner);
  const family = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : undefined;
  if (!family) return 'not an IP address';
  for (const [reason, list] of BLOCK_LISTS) if (list.check(address, family)) return reason;
  return undefined;
}

/** A webhook URL that may not be used, with the sentence that says why. */
export class WebhookAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookAddressError';
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
    throw new WebhookAddressError(`The webhook host "${host}" could not be resolved.`);
  }
  if (addresses.length === 0) throw new WebhookAddressError(`The webhook host "${host}" has no address.`);
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
