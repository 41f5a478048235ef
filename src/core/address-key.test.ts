/**
 * The caller key of a peer address: IPv4 whole, IPv6 by its prefix (default /64), IPv4-mapped IPv6 as IPv4, and
 * the server option that sets the prefix. The same keys over real sockets: test/cross-binding/ipv6-caller-prefix.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { addressKey, DEFAULT_IPV6_CALLER_PREFIX } from './address-key.js';
import { callerKey } from './caller.js';
import { ToolServer } from './server.js';

describe('addressKey', () => {
  it('counts an IPv4 address whole', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('203.0.113.7')).not.toBe(addressKey('203.0.113.8'));
  });

  it('counts IPv6 addresses of one /64 as one caller, and other /64s apart', () => {
    expect(DEFAULT_IPV6_CALLER_PREFIX).toBe(64);
    const a = addressKey('2001:db8:1:2::10');
    expect(a).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(a);
    expect(addressKey('2001:db8:1:3::10')).toBe('2001:db8:1:3::/64');
  });

  it('gives every spelling of one network the same key (case, zeros, zone id, embedded IPv4)', () => {
    const key = addressKey('2001:db8:a:b::1');
    expect(addressKey('2001:0DB8:000A:000b:0:0:0:2')).toBe(key);
    expect(addressKey('2001:db8:a:b:0:0:1.2.3.4')).toBe(key);
    expect(addressKey('fe80::1%eth0')).toBe(addressKey('fe80::2'));
    expect(addressKey('::1')).toBe('::/64');
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address it carries, in either spelling', () => {
    expect(addressKey('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(addressKey('::FFFF:7f00:1')).toBe('127.0.0.1');
    expect(addressKey('0:0:0:0:0:ffff:c000:0280')).toBe('192.0.2.128');
  });

  it('takes any prefix length, masking inside a group too', () => {
    expect(addressKey('2001:db8:1:2::10', 128)).toBe('2001:db8:1:2::10');
    expect(addressKey('2001:db8:1:2::10', 48)).toBe('2001:db8:1::/48');
    expect(addressKey('2001:db8:1:2::10', 56)).toBe(addressKey('2001:db8:1:ff::10', 56));
    expect(addressKey('2001:db8:1:2::10', 56)).toBe('2001:db8:1::/56');
    expect(addressKey('2001:db8:1:1ff::10', 56)).toBe('2001:db8:1:100::/56');
    expect(addressKey('2001:db8::1', 0)).toBe('::/0');
  });

  it('keeps what is not an IP address as it is', () => {
    for (const odd of [
      'unknown',
      '/run/mcplite.sock',
      '1::2::3',
      'g::1',
      '1:2:3:4:5:6:7:8:9',
      '::1.2.3.999',
    ]) {
      expect(addressKey(odd)).toBe(odd);
    }
  });
});

describe('callerKey', () => {
  it('keys a principal by id, an address by addressKey, and nobody as anonymous', () => {
    expect(callerKey({ principal: { id: 'alice' }, remoteAddress: '2001:db8::1' })).toBe('principal:alice');
    expect(callerKey({ remoteAddress: '2001:db8:0:0:1::1' })).toBe('addr:2001:db8::/64');
    expect(callerKey({ remoteAddress: '::ffff:10.0.0.1' })).toBe('addr:10.0.0.1');
    expect(callerKey({})).toBe('anonymous');
  });

  it("applies a server's ipv6CallerPrefix, and refuses one that is not 0 to 128", () => {
    const wide = new ToolServer({ tools: [], ipv6CallerPrefix: 48 });
    expect(wide.callerKey({ remoteAddress: '2001:db8:1:2::10' })).toBe('addr:2001:db8:1::/48');
    const exact = new ToolServer({ tools: [] });
    expect(exact.callerKey({ remoteAddress: '2001:db8:1:2::10' })).toBe('addr:2001:db8:1:2::/64');
    for (const bad of [-1, 129, 64.5, Number.NaN]) {
      expect(() => new ToolServer({ tools: [], ipv6CallerPrefix: bad })).toThrow(/ipv6CallerPrefix/);
    }
  });
});
