import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkWebhookUrl, forbiddenReason, resolveWebhookTarget } from './address-guard.ts';

describe('webhook address guard', () => {
  test('refuses loopback, private, link-local, unspecified, CGNAT, metadata and mapped addresses', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.255.254',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '100.127.255.254',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fe80::1',
      'fc00::1',
      'fd00:ec2::254',
      'fec0::1',
      '100::1',
      '2001:db8::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::7f00:1',
      'ff02::1',
    ]) {
      assert.ok(forbiddenReason(address), `${address} is refused`);
    }
  });

  test('allows public addresses, including neighbours of the private ranges', () => {
    for (const address of [
      '93.184.216.34',
      '8.8.8.8',
      '172.32.0.1',
      '100.128.0.1',
      '11.0.0.1',
      '2606:4700::1111',
      '2001:db9::1',
      '::ffff:8.8.8.8',
    ]) {
      assert.equal(forbiddenReason(address), undefined, address);
    }
  });

  test('an IPv6 address that embeds or translates an IPv4 address is judged by that IPv4 address', () => {
    const refused: Array<[string, RegExp]> = [
      ['::ffff:0:7f00:1', /loopback.*127\.0\.0\.1.*IPv4-translated/],
      ['::ffff:0:127.0.0.1', /loopback/],
      ['::7f00:1', /loopback.*127\.0\.0\.1.*IPv4-compatible/],
      ['::127.0.0.1', /loopback/],
      ['::a9fe:a9fe', /link-local/],
      ['2002:c0a8:101::1', /private.*192\.168\.1\.1.*6to4/],
      ['2002:C0A8:0101::1', /private/],
      ['2002:7f00:1::', /loopback/],
      ['64:ff9b::a9fe:a9fe', /link-local.*169\.254\.169\.254.*NAT64/],
      ['64:ff9b::169.254.169.254', /link-local/],
      ['64:ff9b:1::a00:1', /private.*10\.0\.0\.1.*NAT64/],
      ['64:ff9b:1:abcd::192.168.0.1', /private/],
      ['0:0:0:0:0:ffff:7f00:1', /loopback/],
      ['0000:0000:0000:0000:0000:FFFF:127.0.0.1', /loopback/],
      ['::FFFF:7F00:1', /loopback/],
      ['64:ff9b::7f00:1%eth0', /loopback/],
      ['fe80::1%eth0', /link-local/],
      // Teredo: the client's IPv4 address is stored inverted (80ff:fffe is 127.0.0.1).
      ['2001:0:4136:e378:8000:63bf:80ff:fffe', /loopback.*127\.0\.0\.1.*Teredo/],
      ['2001:0:a00:1:8000:63bf:3fff:fdd2', /private.*10\.0\.0\.1.*Teredo/],
      // `::` and `::1` are IPv6's own unspecified and loopback addresses, not 0.0.0.0 and 0.0.0.1.
      ['::', /^an unspecified address$/],
      ['::1', /^a loopback address$/],
      ['0:0:0:0:0:0:0:1', /^a loopback address$/],
    ];
    for (const [address, reason] of refused)
      assert.match(forbiddenReason(address) ?? 'allowed', reason, address);
    for (const address of [
      '64:ff9b::808:808',
      '64:ff9b::8.8.8.8',
      '64:ff9b:1::808:808',
      '2002:808:808::1',
      '::808:808',
      '::ffff:0:808:808',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '2001:4860:4860::8888',
      '2003:c0a8:101::1',
    ]) {
      assert.equal(forbiddenReason(address), undefined, address);
    }
    assert.equal(forbiddenReason('::ffff:1.2.3'), 'not an IP address');
  });

  test('embedded IPv4 addresses are refused when set and when resolved at send time', async () => {
    for (const url of [
      'http://[::ffff:127.0.0.1]/',
      'http://[::127.0.0.1]/',
      'http://[::ffff:0:127.0.0.1]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://[64:ff9b:1::a9fe:a9fe]/',
      'http://[2002:c0a8:0101::1]/',
    ]) {
      await assert.rejects(checkWebhookUrl(url, { allowPrivate: false }), /FOLIO_WEBHOOK_ALLOW_PRIVATE/, url);
      await assert.rejects(
        resolveWebhookTarget(url, { allowPrivate: false }),
        /FOLIO_WEBHOOK_ALLOW_PRIVATE/,
        url,
      );
    }
    await checkWebhookUrl('http://[64:ff9b::808:808]/', { allowPrivate: false });
    const nat64 = await resolveWebhookTarget('http://[64:ff9b::808:808]/', { allowPrivate: false });
    assert.deepEqual([nat64.address, nat64.family], ['64:ff9b::808:808', 6]);
    for (const address of ['::ffff:10.0.0.5', '2002:a00:5::1', '64:ff9b::10.0.0.5']) {
      const resolve = async () => [{ address, family: 6 }];
      await assert.rejects(
        checkWebhookUrl('https://hooks.example.com/x', { allowPrivate: false, resolve }),
        /10\.0\.0\.5/,
        address,
      );
      await assert.rejects(
        resolveWebhookTarget('https://hooks.example.com/x', { allowPrivate: false, resolve }),
        /a private address \(10\.0\.0\.5 in /,
        address,
      );
    }
  });

  test('every resolved address must be allowed, and the connection goes to a checked one', async () => {
    const mixed = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    await assert.rejects(
      resolveWebhookTarget('https://hooks.example.com/x', { allowPrivate: false, resolve: mixed }),
      /10\.0\.0\.5, a private address; set FOLIO_WEBHOOK_ALLOW_PRIVATE=true/,
    );
    const target = await resolveWebhookTarget('https://hooks.example.com/x', {
      allowPrivate: false,
      resolve: async () => [{ address: '2606:4700::1111', family: 6 }],
    });
    assert.deepEqual(
      [target.address, target.family, target.url.hostname],
      ['2606:4700::1111', 6, 'hooks.example.com'],
    );
    const allowed = await resolveWebhookTarget('http://127.0.0.1:9/x', { allowPrivate: true });
    assert.equal(allowed.address, '127.0.0.1');
  });

  test('a host that does not resolve is refused when sent, with a clear reason, but not when set', async () => {
    const unresolvable = async () => {
      throw new Error('ENOTFOUND');
    };
    await assert.rejects(
      resolveWebhookTarget('https://nowhere.invalid/', { allowPrivate: false, resolve: unresolvable }),
      /could not be resolved/,
    );
    await checkWebhookUrl('https://nowhere.invalid/', { allowPrivate: false, resolve: unresolvable });
    await checkWebhookUrl('https://nowhere.invalid/', { allowPrivate: true, resolve: unresolvable });
  });

  test('when set: private addresses refused unless allowed, and then DNS is not asked', async () => {
    let asked = 0;
    const toPrivate = async () => {
      asked++;
      return [{ address: '192.168.1.10', family: 4 }];
    };
    await assert.rejects(
      checkWebhookUrl('https://hooks.example.com/x', { allowPrivate: false, resolve: toPrivate }),
      /192\.168\.1\.10, a private address/,
    );
    await assert.rejects(checkWebhookUrl('http://[::1]:9/x', { allowPrivate: false }), /a loopback address/);
    assert.equal(asked, 1);
    await checkWebhookUrl('https://hooks.example.com/x', { allowPrivate: true, resolve: toPrivate });
    assert.equal(asked, 1);
    await assert.rejects(checkWebhookUrl('ftp://x.example/', { allowPrivate: true }), /https: or http:/);
  });
});
