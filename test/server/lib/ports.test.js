import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, waitForPort } from '../../../server/lib/ports.js';

describe('loopback ports', () => {
  it('gives a port nothing listens on, which a server can then take', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const srv = net.createServer();
    await new Promise((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(port, '127.0.0.1', () => resolve(undefined));
    });
    await new Promise((r) => srv.close(r));
  });

  it('waits until a server listens, and names what never came up', async () => {
    const port = await freePort();
    const srv = net.createServer();
    setTimeout(() => srv.listen(port, '127.0.0.1'), 200);
    await waitForPort(port, 5000);
    await new Promise((r) => srv.close(r));
    await expect(waitForPort(port, 150, { what: 'redis-server' })).rejects.toThrow(
      `redis-server did not listen on 127.0.0.1:${port} after 150 ms`,
    );
  });
});
