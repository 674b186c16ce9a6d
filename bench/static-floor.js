#!/usr/bin/env node
// The floor of the page-load benchmark (bench/pageload.js): a bare node:http server that answers
// each URL with the bytes and headers our server sent for it, from memory. No routing beyond a
// Map lookup, no hooks, no conditional requests, no ranges: the least any server must do to
// deliver a first page load.
//
// Run forked with an IPC channel (serialization 'advanced', for Buffers): it waits for
// `{type: 'files', files: [{url, headers, body}], maxSeconds}`, then listens on 127.0.0.1 on a
// free port and sends `{type: 'listening', port}`. It exits after maxSeconds whatever happens.

import http from 'node:http';

/** @typedef {{ url: string, headers: Record<string, string>, body: Buffer }} RecordedFile */

/**
 * @param {RecordedFile[]} files
 * @returns {Promise<{ port: number, close: () => Promise<void> }>}
 */
export function startStaticFloor(files) {
  /** @type {Map<string, { headers: Record<string, string>, body: Buffer }>} */
  const byUrl = new Map(
    files.map((f) => [
      f.url,
      {
        headers: { ...f.headers, 'content-length': String(f.body.length) },
        body: Buffer.from(f.body),
      },
    ]),
  );
  const server = http.createServer((req, res) => {
    const file = byUrl.get(/** @type {string} */ (req.url));
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, file.headers).end(file.body);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      resolve({
        port,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

if (process.send) {
  process.on('message', async (/** @type {any} */ msg) => {
    if (msg?.type !== 'files') return;
    setTimeout(() => process.exit(0), (msg.maxSeconds ?? 900) * 1000).unref();
    const { port } = await startStaticFloor(msg.files);
    process.send?.({ type: 'listening', port });
  });
  process.on('SIGTERM', () => process.exit(0));
}
