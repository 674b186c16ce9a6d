// The cost of the cluster's MACs (server/cluster/seal.js, doc/security.md "Redis"): one HMAC-SHA256
// to make and one to check per state stream entry, inbox request and answer, plus a device
// credential checked again by the conductor per tap. `node bench/cluster-seal.js`.

import { clusterKey, createSeal } from '../server/cluster/seal.js';
import { createDeviceCredentials, secretFromToken } from '../server/performance/device-credential.js';

const seal = createSeal(clusterKey('bench-cluster-token-0123456789'));
const credentials = createDeviceCredentials({ secret: secretFromToken('bench-cluster-token-0123456789') });
const { credential } = credentials.issue();
const beat = JSON.stringify({ epoch: 'k3j4h5g6', seq: 1234, t: Date.now(), patch: { beat: 57, beatT: Date.now() } });
const tap = JSON.stringify({
  id: 'AbCdEfGhIjKlMnOp:812',
  from: 'edge-1',
  kind: 'tap',
  body: { tile: 'left', device: credential.split('.')[0], credential },
  s: 'AbCdEfGhIjKlMnOp',
  n: 812,
  t: Date.now(),
});
// A big change of the seed profile (about 18 KB: bench/RESULTS.md, "Cluster").
const big = JSON.stringify({ epoch: 'k3j4h5g6', seq: 1, t: Date.now(), patch: { tiles: 'x'.repeat(18_000) } });

/**
 * Microseconds per call, the best of 5 rounds of `n`.
 * @param {() => unknown} fn @param {number} n
 */
function usPer(fn, n) {
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / n / 1000);
  }
  return best;
}

const rows = [];
for (const [name, text, n] of /** @type {[string, string, number][]} */ ([
  ['a beat (delta)', beat, 50_000],
  ['a tap request', tap, 50_000],
  ['a big change, 18 KB', big, 5_000],
])) {
  const tag = seal.sign('p', text);
  rows.push([name, text.length, usPer(() => seal.sign('p', text), n), usPer(() => seal.verify('p', text, tag), n)]);
}
const cred = usPer(() => credentials.verify(credential), 50_000);
process.stdout.write(
  `cluster MACs, Node ${process.version}\n\n| entry | bytes | sign µs | verify µs |\n| --- | --- | --- | --- |\n`,
);
for (const [name, bytes, s, v] of rows)
  process.stdout.write(`| ${name} | ${bytes} | ${Number(s).toFixed(1)} | ${Number(v).toFixed(1)} |\n`);
process.stdout.write(`\na device credential checked again (per tap, on the conductor): ${cred.toFixed(1)} µs\n`);
