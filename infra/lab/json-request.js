// One HTTP request from one phone: a connection of its own (no agent), from an address of its own,
// a JSON body, answered with its status and body (JSON when it parses). The cluster lab's phones
// and the cluster tests' phones ask the same way.

import http from 'node:http';

/**
 * @param {string} url
 * @param {{ localAddress?: string, method?: string, headers?: Record<string, string>, body?: unknown,
 *   timeoutMs?: number, textMax?: number }} [options] localAddress: the phone's (default the
 *   route's); timeoutMs: idle time before it fails (default none); textMax: how much of a body
 *   that is not JSON to keep (default all)
 * @returns {Promise<{ status: number, body: any }>} rejects when the request fails
 */
export function requestFrom(url, { localAddress, method = 'GET', headers = {}, body, timeoutMs, textMax } = {}) {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent: false,
        ...(localAddress ? { localAddress } : {}),
        ...(timeoutMs !== undefined ? { timeout: timeoutMs } : {}),
        headers: {
          ...headers,
          ...(text !== undefined
            ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }
            : {}),
        },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          data += c;
        });
        res.on('end', () => {
          let parsed = data;
          try {
            parsed = JSON.parse(data);
          } catch {
            /* not JSON: the text, cut to textMax */
            parsed = data.slice(0, textMax);
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(text);
  });
}
