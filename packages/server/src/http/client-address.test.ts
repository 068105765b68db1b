import assert from 'node:assert/strict';
import { test } from 'node:test';
import { budgetAddress } from './client-address.ts';

test('IPv4 addresses count alone; IPv6 ones by their /64, however they are written', () => {
  assert.equal(budgetAddress('203.0.113.10'), '203.0.113.10');
  assert.equal(budgetAddress('::ffff:203.0.113.10'), '203.0.113.10');
  assert.equal(budgetAddress('::FFFF:203.0.113.10'), '203.0.113.10');
  for (const written of [
    '2001:db8:0:1::1',
    '2001:db8:0:1:ffff:ffff:ffff:fffe',
    '2001:0DB8:0000:0001:0:0:0:9',
    '2001:db8:0:1:a::',
    '2001:db8:0:1::1%eth0',
  ]) {
    assert.equal(budgetAddress(written), '2001:db8:0:1::/64', written);
  }
  assert.equal(budgetAddress('2001:db8:0:2::1'), '2001:db8:0:2::/64');
  assert.equal(budgetAddress('::1'), '0:0:0:0::/64');
  assert.equal(budgetAddress('2001:db8::'), '2001:db8:0:0::/64');
  assert.equal(budgetAddress('1:2:3:4:5:6:1.2.3.4'), '1:2:3:4::/64');
  // Not an address (a forwarded header's junk): counted as given, as before.
  assert.equal(budgetAddress('not:an:address'), 'not:an:address');
  assert.equal(budgetAddress(''), '');
});
