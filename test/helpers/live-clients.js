// Minimal live-protocol clients for Node tests, one per transport, with one interface:
// `messages` (parsed envelopes in arrival order), `waitFor(predicate, ms)`, `close()`.

import WebSocket from 'ws';
import { createSseParser } from '../../core/sse-parser.js';

/**
 * @typedef {object} LiveClient
 * @property {any[]} messages
 * @property {(pred: (m: any) => boolean, ms?: number) => Promise<any>} waitFor
 * @property {() => void} close
 * @property {WebSocket} [ws]
 */

function collector() {
  /** @type {any[]} */
  const messages = [];
  /** @type {Set<() => void>} */
  const listeners = new Set();
  return {
    messages,
    /** @param {any} m */
    push(m) {
      messages.push(m);
      for (const l of listeners) l();
    },
    /** @param {(m: any) => boolean} pred @param {number} [ms] */
    waitFor(pred, ms = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = messages.find(pred);
          if (hit) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(hit);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no matching message within ${ms} ms (got ${messages.length})`));
        }, ms);
        listeners.add(check);
        check();
      });
    },
  };
}

/**
 * @param {string} wsBase ws://host:port
 * @param {{ epoch?: string | null, seq?: number }} [holds]
 * @param {import('ws').ClientOptions} [options]
 * @returns {Promise<LiveClient & { ws: WebSocket }>}
 */
export async function openWs(wsBase, holds = {}, options = {}) {
  const c = collector();
  const q = holds.epoch ? `?epoch=${holds.epoch}&seq=${holds.seq ?? 0}` : '';
  const ws = new WebSocket(`${wsBase}/live${q}`, options);
  ws.on('message', (data) => c.push(JSON.parse(data.toString())));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { messages: c.messages, waitFor: c.waitFor, close: () => ws.terminate(), ws };
}

/**
 * An SSE client over fetch (Node 20 has no EventSource). Records `id` lines as `_id`.
 * @param {string} base http://host:port
 * @param {{ epoch?: string | null, seq?: number, lastEventId?: string }} [holds]
 * @returns {Promise<LiveClient>}
 */
export async function openSse(base, holds = {}) {
  const c = collector();
  const controller = new AbortController();
  const q = holds.epoch ? `?epoch=${holds.epoch}&seq=${holds.seq ?? 0}` : '';
  /** @type {Record<string, string>} */
  const headers = holds.lastEventId ? { 'last-event-id': holds.lastEventId } : {};
  const res = await fetch(`${base}/live/sse${q}`, { headers, signal: controller.signal });
  if (!res.ok || !res.body) throw new Error(`SSE answered ${res.status}`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const push = createSseParser(({ id, data }) => c.push({ ...JSON.parse(data), _id: id }));
  (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      push(value ?? '');
    }
  })();
  return { messages: c.messages, waitFor: c.waitFor, close: () => controller.abort() };
}

/**
 * A long-polling client: polls in a loop, carrying epoch and seq forward like the browser does.
 * @param {string} base
 * @param {{ epoch?: string | null, seq?: number, wait?: number }} [holds]
 * @returns {Promise<LiveClient>}
 */
export async function openPoll(base, holds = {}) {
  const c = collector();
  let epoch = holds.epoch ?? '';
  let seq = holds.seq ?? 0;
  let running = true;
  const controller = new AbortController();
  (async () => {
    while (running) {
      const res = await fetch(`${base}/live/poll?epoch=${epoch}&since=${seq}&wait=${holds.wait ?? 5000}`, {
        signal: controller.signal,
      }).catch(() => null);
      if (!res?.ok) return;
      for (const m of await res.json()) {
        c.push(m);
        if (m.type === 'snapshot' || m.type === 'delta') {
          epoch = m.epoch;
          seq = m.seq;
        }
      }
    }
  })();
  return {
    messages: c.messages,
    waitFor: c.waitFor,
    close: () => {
      running = false;
      controller.abort();
    },
  };
}

/** @type {Record<string, (base: string, wsBase: string, holds?: { epoch?: string | null, seq?: number, wait?: number }) => Promise<LiveClient>>} */
export const OPENERS = {
  ws: (_base, wsBase, holds) => openWs(wsBase, holds),
  sse: (base, _wsBase, holds) => openSse(base, holds),
  poll: (base, _wsBase, holds) => openPoll(base, holds),
};
