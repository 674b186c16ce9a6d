// SIGHUP never stops `scorecast start`: `systemctl reload` (infra/systemd's ExecReload), a
// `kill -HUP` meant for a renewed certificate, or a closed terminal. Over plain HTTP it is logged
// and the show goes on; with HTTPS the certificate is read again (test/server/commands/start-https.test.js
// covers a renewal taken up and a broken one refused).

import { describe, it, expect, afterEach, afterAll } from 'vitest';
import { fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import { testCa, VENUE } from '../../helpers/tls-certs.js';

const START = new URL('../../../server/commands/start.js', import.meta.url).pathname;
const SCORE = new URL('../../../scores/seed-profile', import.meta.url).pathname;

/** @type {import('node:child_process').ChildProcess[]} */
const children = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
/** @type {ReturnType<typeof testCa> | undefined} */
let ca;
afterAll(() => {
  if (ca) rmSync(ca.dir, { recursive: true, force: true });
});

/**
 * Start the server on loopback, port 0, with these flags; resolves once it listens.
 * @param {string[]} args
 */
async function start(args) {
  const child = fork(
    START,
    ['--port', '0', '--host', '127.0.0.1', '--score', SCORE, '--autoplay', '--log-level', 'warn', ...args],
    {
      env: { ...process.env, SCORECAST_TOKEN: 'hup-token-123', SCORECAST_QR: '0', NO_COLOR: '' },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    },
  );
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  child.stdout?.resume();
  /** @type {{ port: number }} */
  const listening = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 15 s\n${stderr}`)), 15_000);
    child.on('message', (/** @type {any} */ m) => {
      if (m?.type !== 'listening') return;
      clearTimeout(timer);
      resolve(m);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code ?? signal}\n${stderr}`));
    });
  });
  return { child, port: listening.port, stderr: () => stderr };
}

describe('SIGHUP', { timeout: 30_000 }, () => {
  it('over plain HTTP is logged, reloads nothing and leaves the server playing, however often it comes', async () => {
    const s = await start([]);
    s.child.kill('SIGHUP');
    await expect
      .poll(() => s.stderr(), { timeout: 5000 })
      .toMatch(/^scorecast: SIGHUP: nothing to reload \(no --cert: plain HTTP\); still playing\./m);
    s.child.kill('SIGHUP');
    await expect.poll(() => s.stderr().match(/SIGHUP: nothing to reload/g)?.length ?? 0, { timeout: 5000 }).toBe(2);
    expect([s.child.exitCode, s.child.signalCode]).toEqual([null, null]);
    const res = await fetch(`http://127.0.0.1:${s.port}/api/time`);
    expect(res.status).toBe(200);
  });

  it('with HTTPS reads the certificate again and says it is unchanged, the server still answering', async () => {
    ca = testCa();
    const leaf = ca.leaf({ name: VENUE });
    const s = await start(['--cert', leaf.cert, '--key', leaf.key, '--public-url', `https://${VENUE}`]);
    s.child.kill('SIGHUP');
    await expect
      .poll(() => s.stderr(), { timeout: 5000 })
      .toMatch(
        /^scorecast: SIGHUP: reading the certificate and key again\nscorecast: certificate unchanged: [0-9A-F:]+$/m,
      );
    expect(s.stderr()).toContain(`certificate unchanged: ${leaf.fingerprint}`);
    expect([s.child.exitCode, s.child.signalCode]).toEqual([null, null]);
  });
});
