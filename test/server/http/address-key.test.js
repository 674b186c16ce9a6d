// The one key of every per-address limit: IPv4 as it is, IPv6 by its /64, IPv4-mapped IPv6 as
// the IPv4 address it holds.

import { describe, it, expect } from 'vitest';
import { addressKey } from '../../../server/http/address-key.js';

describe('addressKey', () => {
  it('an IPv6 address counts as its /64, however it is written', () => {
    const key = '2001:db8:1:2::/64';
    for (const a of [
      '2001:db8:1:2::1',
      '2001:db8:1:2:a1b2:c3d4:e5f6:789',
      '2001:0DB8:0001:0002:ffff:ffff:ffff:ffff',
      '2001:db8:1:2::ffff:10.0.0.1',
    ]) {
      expect(addressKey(a), a).toBe(key);
    }
    expect(addressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
  });

  it('an IPv4-mapped IPv6 address is the IPv4 address; IPv4 stays as it is', () => {
    expect(addressKey('::ffff:10.0.0.7')).toBe('10.0.0.7');
    expect(addressKey('::FFFF:10.0.0.7')).toBe('10.0.0.7');
    expect(addressKey('10.0.0.7')).toBe('10.0.0.7');
  });

  it('a link-local zone is not part of the key; a key is its own key; anything else is itself', () => {
    expect(addressKey('fe80::1:2%eth0')).toBe(addressKey('fe80::3:4'));
    expect(addressKey('2001:db8:1:2::/64')).toBe('2001:db8:1:2::/64');
    expect(addressKey(addressKey('2001:db8:1:2::9'))).toBe('2001:db8:1:2::/64');
    expect(addressKey('')).toBe('');
    expect(addressKey(undefined)).toBe('');
    expect(addressKey('cluster')).toBe('cluster');
  });
});
