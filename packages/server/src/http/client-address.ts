import { isIPv6 } from 'node:net';

/**
 * What one client's failed authentications are counted under: its IPv4 address, or the /64
 * network of an IPv6 one. A single IPv6 host is routed a /64 at least and may take any address
 * in it, so counting each address would give one guesser 2^64 budgets, and a flood of them
 * would push other addresses' counts out of the table. An IPv4 address written as IPv6
 * (`::ffff:192.0.2.1`, as a dual-stack socket reports one) is that IPv4 address.
 */
export function budgetAddress(address: string): string {
  // IPv4 (every client of the default HOST): no work beyond this test.
  if (!address.includes(':')) return address;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  const plain = address.split('%')[0]!;
  if (!isIPv6(plain)) return address;
  const [head = '', tail] = plain.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  // An embedded IPv4 tail (::1.2.3.4) sits in the last 32 bits: outside the /64 kept here.
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
