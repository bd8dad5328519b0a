import assert from 'node:assert/strict';
import { isForbiddenAddress, loggableUrl, vetUrl, UrlRefused } from '../../lib/url-policy';

describe('URL policy: where Payrail never sends a request', () => {
  it('refuses the IPv6 ranges that reach IPv4 or internal networks', () => {
    for (const address of [
      '64:ff9b:1::a00:1', // local-use NAT64 (RFC 8215)
      '64:ff9b:1:ffff::1',
      '::ffff:0:0',
      '::ffff:127.0.0.1', // IPv4-mapped, dotted
      '::ffff:7f00:1', // IPv4-mapped, hex
      '::ffff:8.8.8.8', // even a public IPv4 address, mapped
      '2001::1', // Teredo
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      'fec0::1', // site-local
      'feff:ffff::1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::1',
      'fd00::1',
      'fe80::1',
      '::1',
      '::',
    ]) {
      assert.equal(isForbiddenAddress(address), true, address);
    }
  });

  it('allows public addresses next to those ranges', () => {
    for (const address of ['2001:db8::1', '2001:1::1', '2606:4700:4700::1111', '64:ff9b:2::1', 'fe00::1', '8.8.8.8', '1.1.1.1']) {
      assert.equal(isForbiddenAddress(address), false, address);
    }
  });

  it('refuses a URL whose literal host is in a new range', async () => {
    for (const url of ['https://[64:ff9b:1::a00:1]/hook', 'https://[2001::1]/hook', 'https://[fec0::1]/hook', 'https://[::ffff:a00:1]/hook']) {
      await assert.rejects(vetUrl(url, { schemes: ['https:'], allowPrivateNetworks: false, label: 'webhookUrl' }), UrlRefused, url);
    }
  });

  it('logs URLs without their query string, fragment or credentials', () => {
    assert.equal(loggableUrl('https://user:pw@shop.example:8443/hooks/payrail?token=s3cr3t#frag'), 'https://shop.example:8443/hooks/payrail');
    assert.equal(loggableUrl('not a url'), '(unparsable URL)');
  });
});
