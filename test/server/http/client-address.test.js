// Who the client is: the TCP peer, or behind a trusted proxy the address it forwarded.

import { describe, it, expect } from 'vitest';
import { createClientAddress } from '../../../server/http/client-address.js';

/**
 * A request as Node gives it: its peer and its X-Forwarded-For.
 * @param {string} remoteAddress @param {string} [forwarded]
 */
const request = (remoteAddress, forwarded) =>
  /** @type {import('node:http').IncomingMessage} */ (
    /** @type {unknown} */ ({
      socket: { remoteAddress },
      headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
    })
  );

describe('the client of a request', () => {
  it('without trusted proxies it is the TCP peer, whatever X-Forwarded-For says', () => {
    const clients = createClientAddress(null);
    expect(clients.trust).toBeNull();
    expect(clients.of(request('10.0.0.7', '10.9.9.9'))).toBe('10.0.0.7');
    expect(clients.isProxy('127.0.0.1')).toBe(false);
    expect(createClientAddress([]).of(request('10.0.0.7', '10.9.9.9'))).toBe('10.0.0.7');
  });

  it('through a trusted proxy it is the address the proxy forwarded; from anyone else, the peer', () => {
    const clients = createClientAddress(['127.0.0.1', '10.1.0.0/16']);
    expect(clients.isProxy('127.0.0.1')).toBe(true);
    expect(clients.isProxy('::ffff:127.0.0.1')).toBe(true);
    expect(clients.isProxy('10.1.2.3')).toBe(true);
    expect(clients.isProxy('127.0.0.2')).toBe(false);
    expect(clients.of(request('127.0.0.1', '192.168.5.5'))).toBe('192.168.5.5');
    // A client's own X-Forwarded-For before the proxy's entry is not believed: the nearest hop
    // the proxy did not vouch for is the client.
    expect(clients.of(request('127.0.0.1', '6.6.6.6, 192.168.5.5'))).toBe('192.168.5.5');
    // Through two trusted hops, the first untrusted one.
    expect(clients.of(request('127.0.0.1', '192.168.5.5, 10.1.0.9'))).toBe('192.168.5.5');
    // Not a trusted proxy: its header is not believed.
    expect(clients.of(request('127.0.0.2', '192.168.5.5'))).toBe('127.0.0.2');
    // A trusted proxy that forwarded nothing: the proxy.
    expect(clients.of(request('127.0.0.1'))).toBe('127.0.0.1');
  });
});
