// The client behind nginx: a cluster as `npm run cluster` runs it (two edges), used through nginx
// by clients each on a loopback address of its own (127.0.x.y), as phones with an address each
// reach a venue's server. The edges must count every per-address limit against the phone nginx
// saw, not against nginx (everyone) nor against an X-Forwarded-For the phone wrote itself.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import WebSocket from 'ws';
import { HAVE_REDIS } from '../../helpers/redis-server.js';
import { CLUSTER_TOKEN, call, requestFrom, startCluster, until } from '../../helpers/cluster-nodes.js';
import { openWs } from '../../helpers/live-clients.js';

const HAVE_NGINX = spawnSync('sh', ['-c', 'command -v nginx || test -x /usr/sbin/nginx']).status === 0;
if (!HAVE_REDIS || !HAVE_NGINX)
  console.warn(
    'cluster client tests skipped: redis-server or nginx is not installed (test/setup/ensure-deps.sh installs them)',
  );

/** The edges' default phones per address (--phones-per-address). */
const CAP = 32;

/** @type {import('../../helpers/cluster-nodes.js').RunningCluster} */
let cluster;
/** @type {{ vote: string | null, ws: WebSocket }[]} */
let watchers = [];

/**
 * The `n`th loopback address of block `block`: each block is one test's set of phones.
 * @param {number} block @param {number} n  1..250
 */
const addr = (block, n) => `127.0.${block}.${n}`;
/** @param {number} n */
const range = (n) => Array.from({ length: n }, (_, i) => i);
/** A forged X-Forwarded-For, a different one for each `i`. @param {number} i */
const forged = (i) => ({ 'x-forwarded-for': `10.66.${i >> 8}.${i & 255}` });

/** The open vote window's id in a state message, undefined when the message does not say. @param {any} m */
function voteIn(m) {
  const audience =
    m.type === 'snapshot' ? m.state?.cues?.audience : m.type === 'delta' ? m.patch?.cues?.audience : undefined;
  if (audience === undefined || !('vote' in audience)) return m.type === 'snapshot' ? null : undefined;
  return audience.vote?.id ?? null;
}

beforeAll(async () => {
  if (!HAVE_REDIS || !HAVE_NGINX) return;
  cluster = await startCluster({ edges: 2 });
  await until(async () => (await call(cluster.url, '/api/cluster')).body.nodes?.length === 4, 15_000);
  // One watcher on each edge, straight to it: a test votes once every edge knows the window is
  // open (an edge's vote guard counts per window as its own state has it).
  watchers = cluster.procs
    .filter((p) => p.name.startsWith('edge-'))
    .map((p) => {
      const w = { vote: /** @type {string | null} */ (null), ws: new WebSocket(`ws://127.0.0.1:${p.port}/live`) };
      w.ws.on('message', (data) => {
        const v = voteIn(JSON.parse(data.toString()));
        if (v !== undefined) w.vote = v;
      });
      return w;
    });
}, 70_000);

afterAll(async () => {
  for (const w of watchers) w.ws.terminate();
  await cluster?.stop();
}, 30_000);

/** A new vote window, known to every edge. */
async function freshWindow() {
  await call(cluster.url, '/api/control/vote', { method: 'POST', body: { close: true } });
  await until(() => watchers.every((w) => w.vote === null), 5000);
  expect((await call(cluster.url, '/api/control/vote', { method: 'POST', body: { open: 'choice' } })).status).toBe(200);
  await until(() => watchers.every((w) => w.vote === 'choice'), 5000);
}

/** Votes counted in the open window. */
async function counted() {
  const tally = (await call(cluster.url, '/api/votes')).body.open?.tally ?? {};
  return Object.values(tally).reduce((a, b) => a + Number(b), 0);
}

/**
 * Device credentials, one from each of `n` addresses of `block` (how an attacker farms them).
 * @param {number} block @param {number} n
 * @returns {Promise<string[]>}
 */
async function credentials(block, n) {
  const answers = await Promise.all(
    range(n).map((i) => requestFrom(`${cluster.url}/api/device`, { localAddress: addr(block, i + 1), method: 'POST' })),
  );
  for (const a of answers) expect(a.status).toBe(200);
  return answers.map((a) => a.body.device);
}

/**
 * A tap over a WebSocket of its own from `localAddress`: the `voted` or `error` answer.
 * @param {string} localAddress @param {string} device
 */
async function wsTap(localAddress, device) {
  const c = await openWs(cluster.url.replace('http', 'ws'), {}, { localAddress });
  await c.waitFor((m) => m.type === 'snapshot');
  c.ws.send(JSON.stringify({ type: 'tap', tile: 'left', device }));
  const answer = await c.waitFor((m) => m.type === 'voted' || m.type === 'error');
  return { answer, close: () => c.close() };
}

/**
 * Try to hold a stream open from `localAddress`: a WebSocket or an SSE stream, through nginx.
 * Resolves 'open' (and keeps it), or the HTTP status it was refused with.
 * @param {'ws' | 'sse'} kind @param {string} localAddress @param {(close: () => void) => void} keep
 * @returns {Promise<'open' | number>}
 */
function holdStream(kind, localAddress, keep) {
  return new Promise((resolve) => {
    if (kind === 'ws') {
      const ws = new WebSocket(`${cluster.url.replace('http', 'ws')}/live`, { localAddress });
      ws.once('open', () => {
        keep(() => ws.terminate());
        resolve('open');
      });
      ws.once('unexpected-response', (req, res) => {
        res.resume();
        req.destroy();
        resolve(res.statusCode ?? 0);
      });
      ws.on('error', () => resolve(0));
      return;
    }
    const req = http.get(`${cluster.url}/live/sse`, { agent: false, localAddress }, (res) => {
      if (res.statusCode === 200) {
        keep(() => req.destroy());
        res.resume();
        resolve('open');
      } else {
        res.resume();
        req.destroy();
        resolve(res.statusCode ?? 0);
      }
    });
    req.on('error', () => resolve(0));
  });
}

describe.skipIf(!HAVE_REDIS || !HAVE_NGINX)('the client behind nginx', () => {
  it(`one address forging X-Forwarded-For gets at most ${CAP} credentials and ${CAP} counted votes a window`, async () => {
    const farmed = await credentials(20, 100);
    await freshWindow();
    const attacker = addr(21, 1);
    const issued = await Promise.all(
      range(300).map((i) =>
        requestFrom(`${cluster.url}/api/device`, { localAddress: attacker, method: 'POST', headers: forged(i) }),
      ),
    );
    const granted = issued.filter((r) => r.status === 200).length;
    expect(granted).toBeGreaterThan(0);
    expect(granted).toBeLessThanOrEqual(CAP);

    // The credential requests spent the address's request budget (40 at once, 20 a second): let
    // it refill, so that what stops the votes below is the vote cap.
    await new Promise((r) => setTimeout(r, 2100));
    const taps = await Promise.all(
      farmed.map((device, i) =>
        requestFrom(`${cluster.url}/api/tap`, {
          localAddress: attacker,
          method: 'POST',
          headers: forged(i),
          body: { tile: 'left', device },
        }),
      ),
    );
    const voted = taps.filter((r) => r.body?.type === 'voted').length;
    console.log(`forged X-Forwarded-For from one address: ${granted} of 300 credentials, ${voted} of 100 votes`);
    expect(voted).toBe(CAP);
    expect(await counted()).toBe(voted);
  }, 20_000);

  it(`40 phones with an address each are all counted over HTTP while an attacker's address holds its ${CAP} votes`, async () => {
    const farmed = await credentials(30, 40);
    await freshWindow();
    const attack = await Promise.all(
      farmed.map((device, i) =>
        requestFrom(`${cluster.url}/api/tap`, {
          localAddress: addr(31, 1),
          method: 'POST',
          headers: forged(i),
          body: { tile: 'right', device },
        }),
      ),
    );
    const attackerVotes = attack.filter((r) => r.body?.type === 'voted').length;
    expect(attackerVotes).toBeLessThanOrEqual(CAP);

    // Each phone asks for its credential and taps, all at once: nginx carries their requests on
    // its pooled sockets to the edges, which are no phone's connection.
    const phones = await Promise.all(
      range(40).map(async (i) => {
        const localAddress = addr(32, i + 1);
        const { body } = await requestFrom(`${cluster.url}/api/device`, { localAddress, method: 'POST' });
        return requestFrom(`${cluster.url}/api/tap`, {
          localAddress,
          method: 'POST',
          body: { tile: 'left', device: body.device },
        });
      }),
    );
    expect(phones.map((r) => r.body?.type ?? r.body?.code)).toEqual(range(40).map(() => 'voted'));
    expect(await counted()).toBe(attackerVotes + 40);
  }, 20_000);

  it(`40 phones with an address each are all counted over WebSocket while an attacker's address holds its ${CAP} votes`, async () => {
    const farmed = await credentials(40, 40);
    await freshWindow();
    const attack = await Promise.all(farmed.map((device) => wsTap(addr(41, 1), device)));
    const attackerVotes = attack.filter((t) => t.answer.type === 'voted').length;
    expect(attackerVotes).toBeLessThanOrEqual(CAP);
    expect(attack.filter((t) => t.answer.type === 'error').map((t) => t.answer.code)).toEqual(
      range(40 - attackerVotes).map(() => 'SC_ERR_ADDRESS_LIMIT'),
    );

    const phones = await Promise.all(
      range(40).map(async (i) => {
        const localAddress = addr(42, i + 1);
        const { body } = await requestFrom(`${cluster.url}/api/device`, { localAddress, method: 'POST' });
        return wsTap(localAddress, body.device);
      }),
    );
    expect(phones.map((t) => t.answer.type === 'voted' || t.answer.code)).toEqual(range(40).map(() => true));
    expect(await counted()).toBe(attackerVotes + 40);
    for (const t of [...attack, ...phones]) t.close();
  }, 20_000);

  it('other phones are still served (/, /api/score, /live) while one address tries to hold 1,100 streams', async () => {
    /** @type {(() => void)[]} */
    const held = [];
    try {
      const attacker = addr(50, 1);
      /** @type {('open' | number)[]} */
      const results = [];
      // 550 WebSockets and 550 SSE streams, 100 at a time.
      for (let i = 0; i < 1100; i += 100) {
        results.push(
          ...(await Promise.all(
            range(100).map((j) => holdStream((i + j) % 2 ? 'sse' : 'ws', attacker, (close) => held.push(close))),
          )),
        );
      }
      const open = results.filter((r) => r === 'open').length;
      console.log(
        `one address tried 1,100 streams through nginx: ${open} open, ${results.filter((r) => r === 429).length} refused 429`,
      );
      expect(open).toBeLessThanOrEqual(128);
      expect(results.filter((r) => r !== 'open' && r !== 429)).toEqual([]);

      const phones = await Promise.all(
        range(20).map(async (i) => {
          const localAddress = addr(51, i + 1);
          const page = await requestFrom(`${cluster.url}/`, { localAddress });
          const score = await requestFrom(`${cluster.url}/api/score`, { localAddress });
          /** @type {(() => void)[]} */
          const mine = [];
          const live = await holdStream('ws', localAddress, (close) => mine.push(close));
          for (const close of mine) close();
          return [page.status, score.status, live];
        }),
      );
      expect(phones).toEqual(range(20).map(() => [200, 200, 'open']));
    } finally {
      // Not left open for the tests after this one, whatever happened.
      for (const close of held) close();
    }
  }, 20_000);

  it('50 wrong conductor tokens from one address, each with its own forged X-Forwarded-For, hit the sign-in budget', async () => {
    /** @type {number[]} */
    const statuses = [];
    for (const i of range(50)) {
      const r = await requestFrom(`${cluster.url}/api/status`, {
        localAddress: addr(60, 1),
        headers: { authorization: 'Bearer wrong-token-0000', ...forged(i) },
      });
      statuses.push(r.status);
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual(range(45).map(() => 429));
    // The conductor, on the same address, still signs in.
    const right = await requestFrom(`${cluster.url}/api/status`, {
      localAddress: addr(60, 1),
      headers: { authorization: `Bearer ${CLUSTER_TOKEN}` },
    });
    expect(right.status).toBe(200);
  }, 20_000);
});
