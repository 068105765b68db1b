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
      '::ffff:8.8.8.8',
    ]) {
      assert.equal(forbiddenReason(address), undefined, address);
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
