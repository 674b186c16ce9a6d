// HTTPS: a venue that wants the service worker and the screen wake lock on phones needs a secure
// context, so the server serves HTTPS from a certificate and key (--cert, --key).

import { describe, it, expect, afterEach } from 'vitest';
import { readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import tlsLib from 'node:tls';
import WebSocket from 'ws';
import { buildApp } from '../../../server/app.js';
import { HTTP_TIMEOUTS } from '../../../server/http/connection-limit.js';
import { packageOf, smallModel } from '../../helpers/fixtures.js';
import { testCa } from '../../helpers/tls-certs.js';

/** A certificate for 127.0.0.1 from a test CA made for this test, and the CA the clients trust. */
function certified() {
  const { dir, ca, leaf } = testCa({ days: 1 });
  const { cert, key } = leaf({ name: '127.0.0.1', days: 1 });
  const made = { https: { cert: readFileSync(cert), key: readFileSync(key) }, ca: readFileSync(ca) };
  rmSync(dir, { recursive: true, force: true });
  return made;
}

/** @type {(() => Promise<unknown>)[]} */
let cleanup = [];
afterEach(async () => {
  for (const f of cleanup) await f();
  cleanup = [];
});

describe('HTTPS', () => {
  it('the connection cap and the timeouts hold over TLS too: past the cap, a connection is closed', async () => {
    const tls = certified();
    const { app } = await buildApp({
      score: packageOf(smallModel()),
      token: 'tls-token-123',
      https: tls.https,
      connectionsPerAddress: 2,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    cleanup.push(() => app.close());
    const server = /** @type {import('node:https').Server} */ (app.server);
    expect(server.headersTimeout).toBe(HTTP_TIMEOUTS.headersTimeout);
    const { port } = /** @type {import('node:net').AddressInfo} */ (app.server.address());
    /** @returns {Promise<{ socket: import('node:tls').TLSSocket, result: 'secure' | 'closed' }>} */
    const connect = () =>
      new Promise((resolve) => {
        const socket = tlsLib.connect({ host: '127.0.0.1', port, ca: tls.ca });
        socket.once('secureConnect', () => resolve({ socket, result: 'secure' }));
        socket.once('error', () => resolve({ socket, result: 'closed' }));
        socket.once('close', () => resolve({ socket, result: 'closed' }));
      });
    /** @type {Array<{ socket: import('node:tls').TLSSocket, result: string }>} */
    const tries = [];
    // Before app.close(): it waits for open connections.
    cleanup.unshift(async () => {
      for (const t of tries) t.socket.destroy();
    });
    for (let i = 0; i < 3; i++) tries.push(await connect());
    expect(tries.map((t) => t.result)).toEqual(['secure', 'secure', 'closed']);
  });

  it('serves the API and the live WebSocket over TLS', async () => {
    const tls = certified();
    const { app } = await buildApp({ score: packageOf(smallModel()), token: 'tls-token-123', https: tls.https });
    await app.listen({ port: 0, host: '127.0.0.1' });
    cleanup.push(() => app.close());
    const { port } = /** @type {import('node:net').AddressInfo} */ (app.server.address());
    const body = await new Promise((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port, path: '/healthz', ca: tls.ca }, (res) => {
          let text = '';
          res.on('data', (d) => {
            text += d;
          });
          res.on('end', () => resolve(JSON.parse(text)));
        })
        .on('error', reject);
    });
    expect(body).toMatchObject({ status: 'ok' });
    const ws = new WebSocket(`wss://127.0.0.1:${port}/live`, { ca: tls.ca });
    cleanup.push(async () => {
      ws.terminate();
    });
    const first = await new Promise((resolve, reject) => {
      ws.once('message', (data) => resolve(JSON.parse(String(data))));
      ws.once('error', reject);
    });
    expect(first).toMatchObject({ type: 'welcome' });
  });
});
