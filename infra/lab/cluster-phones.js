// The phones of the cluster lab (cluster-lab.js): runs in the phones' namespace and does what its
// parent asks over IPC, every request and WebSocket from a phone address of its own
// (phoneAddress(i)), to the audience's address (SCORECAST_AUDIENCE, nginx). Answers
// {id, result} or {id, error}.
//
//   ping                                   -> 'pong'
//   http { requests: [{ phone, method, path, headers, body }] }   -> [{ status, body }] (at once)
//   open { tag, first, n }                 n WebSockets from phones first..first+n-1, reconnecting
//                                          like the page (saying what they hold); -> how many got a state
//   state { tag }                          -> their seqs, losses, repeats, reconnects
//   newer { tag, ms }                      wait until every one has a state newer than now's newest
//   close { tag }
//   vote { first, n, over: 'http' | 'ws', tile }   each phone: a device credential, then one tap
//   hold { tag, phone, n }                 n WebSockets at once from one phone's address, never
//                                          reconnecting; -> { open, refused: { status: count } }
//   probe { host, port, ms }               a TCP connection: 'connected', an error code, or 'timeout'

import net from 'node:net';
import WebSocket from 'ws';
import { phoneAddress } from './cluster-lab.js';
import { requestFrom } from './json-request.js';

const BASE = process.env.SCORECAST_AUDIENCE ?? 'http://10.21.0.1';

/**
 * A request from one phone's address; a failed one answers status 0 and why.
 * @param {{ phone: number, method?: string, path: string, headers?: Record<string, string>, body?: unknown }} r
 * @returns {Promise<{ status: number, body: any }>}
 */
function request({ phone, path, ...r }) {
  return requestFrom(`${BASE}${path}`, {
    ...r,
    localAddress: phoneAddress(phone),
    timeoutMs: 10_000,
    textMax: 200,
  }).catch((e) => ({ status: 0, body: e.message }));
}

/**
 * @typedef {{ epoch: string | null, seq: number, gaps: number, dups: number, reconnects: number,
 *   closed: boolean, ws: WebSocket | null }} Client
 */
/** @type {Map<string, Client[]>} */
const groups = new Map();

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** @param {() => boolean} cond @param {number} ms */
async function until(cond, ms) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await sleep(20);
  }
  return true;
}

/** @param {number} phone */
function openClient(phone) {
  /** @type {Client} */
  const c = { epoch: null, seq: -1, gaps: 0, dups: 0, reconnects: 0, closed: false, ws: null };
  const open = () => {
    const q = c.epoch ? `?epoch=${c.epoch}&seq=${c.seq}` : '';
    const ws = new WebSocket(`${BASE.replace('http', 'ws')}/live${q}`, { localAddress: phoneAddress(phone) });
    c.ws = ws;
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      if (m.type !== 'delta' && m.type !== 'snapshot') return;
      if (m.type === 'delta' && m.epoch === c.epoch) {
        if (m.seq <= c.seq) c.dups++;
        else if (m.seq > c.seq + 1) c.gaps++;
      }
      c.epoch = m.epoch;
      c.seq = m.seq;
    });
    ws.on('error', () => {});
    ws.on('close', () => {
      if (c.closed) return;
      c.reconnects++;
      setTimeout(open, 100 + Math.random() * 200);
    });
  };
  open();
  return c;
}

/** @param {Client[]} cs */
const newest = (cs) => Math.max(...cs.map((c) => c.seq));

/** @type {Record<string, (m: any) => Promise<unknown>>} */
const OPS = {
  ping: async () => 'pong',
  http: async (m) => Promise.all(m.requests.map(request)),
  open: async ({ tag, first, n }) => {
    /** @type {Client[]} */
    const cs = [];
    for (let i = 0; i < n; i++) {
      cs.push(openClient(first + i));
      if (i % 50 === 49) await sleep(50);
    }
    groups.set(tag, cs);
    await until(() => cs.every((c) => c.seq >= 0), 20_000);
    return cs.filter((c) => c.seq >= 0).length;
  },
  state: async ({ tag }) => {
    const cs = groups.get(tag) ?? [];
    return {
      n: cs.length,
      minSeq: Math.min(...cs.map((c) => c.seq)),
      maxSeq: newest(cs),
      epochs: [...new Set(cs.map((c) => c.epoch))].length,
      gaps: cs.reduce((a, c) => a + c.gaps, 0),
      dups: cs.reduce((a, c) => a + c.dups, 0),
      reconnects: cs.reduce((a, c) => a + c.reconnects, 0),
    };
  },
  newer: async ({ tag, ms }) => {
    const cs = groups.get(tag) ?? [];
    const seq = newest(cs);
    const t0 = Date.now();
    const ok = await until(() => cs.every((c) => c.seq > seq), ms);
    return { ok, ms: Date.now() - t0, behind: cs.filter((c) => c.seq <= seq).length };
  },
  close: async ({ tag }) => {
    for (const c of groups.get(tag) ?? []) {
      c.closed = true;
      c.ws?.terminate();
    }
    groups.delete(tag);
    return null;
  },
  hold: async ({ tag, phone, n }) => {
    /** @type {Record<string, number>} */
    const refused = {};
    /** @type {Client[]} */
    const held = [];
    const outcomes = await Promise.all(
      Array.from(
        { length: n },
        () =>
          /** @type {Promise<boolean>} */ (
            new Promise((resolve) => {
              const ws = new WebSocket(`${BASE.replace('http', 'ws')}/live`, { localAddress: phoneAddress(phone) });
              held.push({ epoch: null, seq: -1, gaps: 0, dups: 0, reconnects: 0, closed: true, ws });
              ws.once('open', () => resolve(true));
              ws.once('unexpected-response', (_req, res) => {
                const k = String(res.statusCode);
                refused[k] = (refused[k] ?? 0) + 1;
                resolve(false);
              });
              ws.once('error', () => resolve(false));
            })
          ),
      ),
    );
    groups.set(tag, held);
    return { open: outcomes.filter(Boolean).length, refused };
  },
  vote: async ({ first, n, over, tile = 'left' }) =>
    Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const phone = first + i;
        const cred = await request({ phone, method: 'POST', path: '/api/device' });
        if (cred.status !== 200) return { credential: cred.status };
        const device = cred.body.device;
        if (over === 'http') {
          const r = await request({ phone, method: 'POST', path: '/api/tap', body: { tile, device } });
          return { credential: 200, tap: r.status, body: r.body };
        }
        return new Promise((resolve) => {
          const ws = new WebSocket(`${BASE.replace('http', 'ws')}/live`, { localAddress: phoneAddress(phone) });
          const timer = setTimeout(() => {
            ws.terminate();
            resolve({ credential: 200, tap: 'timeout' });
          }, 10_000);
          let sent = false;
          ws.on('message', (data) => {
            const msg = JSON.parse(data.toString());
            if (!sent && msg.type === 'snapshot') {
              sent = true;
              ws.send(JSON.stringify({ type: 'tap', tile, device }));
            } else if (sent && (msg.type === 'voted' || msg.type === 'error')) {
              clearTimeout(timer);
              ws.close();
              resolve({ credential: 200, tap: msg.type, code: msg.code });
            }
          });
          ws.on('error', (e) => {
            clearTimeout(timer);
            resolve({ credential: 200, tap: e.message });
          });
        });
      }),
    ),
  probe: async ({ host, port, ms = 1500 }) =>
    new Promise((resolve) => {
      const s = net.connect({ host, port });
      s.setTimeout(ms, () => {
        s.destroy();
        resolve('timeout');
      });
      s.on('connect', () => {
        s.destroy();
        resolve('connected');
      });
      s.on('error', (/** @type {NodeJS.ErrnoException} */ e) => resolve(e.code ?? e.message));
    }),
};

process.on('message', (/** @type {any} */ m) => {
  const op = OPS[m.op];
  const reply = (/** @type {object} */ r) => process.send?.({ id: m.id, ...r });
  if (!op) {
    reply({ error: `unknown op ${m.op}` });
    return;
  }
  op(m).then(
    (result) => reply({ result }),
    (err) => reply({ error: String(err?.stack ?? err) }),
  );
});
process.on('disconnect', () => process.exit(0));
