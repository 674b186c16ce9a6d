// SIGHUP never stops `scorecast start`: `systemctl reload` (infra/systemd's ExecReload), a
// `kill -HUP` meant for a renewed certificate, or a closed terminal. Over plain HTTP it is logged
// and the show goes on; with HTTPS the certificate is read again (test/server/commands/start-https.test.js
// covers a renewal taken up and a broken one refused).

import { describe, it, expect, afterEach, afterAll } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { freePort } from '../../../server/lib/ports.js';
import { testCa, VENUE } from '../../helpers/tls-certs.js';
import { forkStart, START } from '../../helpers/fork-start.js';

const SCORE = new URL('../../../scores/seed-profile', import.meta.url).pathname;

/** @type {import('node:child_process').ChildProcess[]} */
const children = [];
/** Servers started under a terminal, by pid. @type {number[]} */
const pids = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const pid of pids.splice(0))
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone already */
    }
});
/** util-linux's `script` gives a command a terminal of its own (a pseudo-terminal). */
const hasScript = spawnSync('sh', ['-c', 'command -v script']).status === 0;
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
  const s = forkStart(
    ['--port', '0', '--host', '127.0.0.1', '--score', SCORE, '--autoplay', '--log-level', 'warn', ...args],
    { env: { SCORECAST_TOKEN: 'hup-token-123', NO_COLOR: '' } },
  );
  children.push(s.child);
  const { port } = await s.listening;
  return { child: s.child, port, stderr: s.stderr };
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

  it.skipIf(!hasScript)(
    'a terminal that hangs up (an SSH session closed) leaves the server playing, and logging to it stops nothing',
    async () => {
      const port = await freePort();
      const cmd = `echo "pid $$"; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(START)} --port ${port} --host 127.0.0.1 --score ${JSON.stringify(SCORE)} --autoplay --log-level info`;
      const term = spawn('script', ['-qfec', cmd, '/dev/null'], {
        env: { ...process.env, SCORECAST_TOKEN: 'hup-token-123', SCORECAST_QR: '0' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      children.push(term);
      let out = '';
      term.stdout?.on('data', (d) => {
        out += d;
      });
      await expect.poll(() => out, { timeout: 15_000 }).toContain('control:');
      const pid = Number(out.match(/pid (\d+)/)?.[1]);
      pids.push(pid);
      // The terminal goes: the kernel sends the server SIGHUP, and every later write fails (EIO).
      term.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, 500));
      const reload = () =>
        fetch(`http://127.0.0.1:${port}/api/reload`, {
          method: 'POST',
          headers: { authorization: 'Bearer hup-token-123' },
          signal: AbortSignal.timeout(5000),
        });
      // Each reload logs a line to the gone terminal ('score reloaded', level info).
      expect((await reload()).status).toBe(200);
      expect((await reload()).status).toBe(200);
      const time = await fetch(`http://127.0.0.1:${port}/api/time`, { signal: AbortSignal.timeout(5000) });
      expect(time.status).toBe(200);
      expect(() => process.kill(pid, 0)).not.toThrow();
    },
  );
});
