// Starts `server/commands/start.js` as a child process on a chosen port, as a user would, so a test can
// stop and restart it mid-piece.

import { fork } from 'node:child_process';
import { forkServer } from '../artillery/lib/server.js';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const TOKEN = 'playwright-token-123';

export { freePort } from '../server/lib/ports.js';

/**
 * @param {{ port: number, score?: string, autoplay?: boolean, timeoutMs?: number, stateFile?: string }} options
 *   timeoutMs: how long it may take to listen: a wait, not a bound (it takes 1-2 s alone; two
 *   test workers on a loaded CI machine, each with a browser, have seen 10 s and more);
 *   stateFile: the save to resume from and write to (a restart with the same file goes on where
 *   the performance was); without it, each start is fresh
 */
export async function startServer({ port, score = 'scores/demo', autoplay = true, timeoutMs = 30_000, stateFile }) {
  const args = [
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    '--score',
    path.join(ROOT, score),
    '--log-level',
    'warn',
  ];
  if (autoplay) args.push('--autoplay');
  const server = await forkServer({
    root: ROOT,
    args,
    timeoutMs,
    // Each start is a fresh performance, saved apart from the performances' saves in .cache/.
    env: {
      SCORECAST_TOKEN: TOKEN,
      SCORECAST_RESUME: stateFile === undefined ? '0' : '1',
      SCORECAST_STATE_FILE: stateFile ?? path.join(os.tmpdir(), `scorecast-playwright-${port}.json`),
    },
  });
  return serverHandle(server.child, server.url, TOKEN);
}

/**
 * Start `scorecast preview DIR` as a composer would (a token of its own, loopback, no browser
 * opened); resolves with the server and the preview URL it printed.
 * @param {{ port: number, dir: string }} options
 */
export async function startPreview({ port, dir }) {
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, SCORECAST_QR: '0' };
  delete env.SCORECAST_TOKEN;
  const child = fork(
    path.join(ROOT, 'server', 'commands', 'cli.js'),
    ['preview', dir, '--port', String(port), '--no-open', '--log-level', 'warn'],
    {
      env,
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    },
  );
  let out = '';
  const url = await new Promise((resolve, reject) => {
    // The first run engraves the notation into the (shared) cache: a few seconds alone, and more
    // than 30 beside a second test worker on a loaded machine. A wait, not a bound.
    const timer = setTimeout(() => reject(new Error(`preview did not start within 60 s:\n${out}`)), 60_000);
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const m = /preview: +(\S+)\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`preview exited with ${code}:\n${out}`));
    });
  });
  const { origin, hash } = new URL(url);
  const token = new URLSearchParams(hash.slice(1)).get('token') ?? '';
  return { ...serverHandle(child, origin, token), url, token, output: () => out };
}

/**
 * @param {import('node:child_process').ChildProcess} child
 * @param {string} base
 * @param {string} token
 */
function serverHandle(child, base, token) {
  return {
    base,
    /** @param {string} action @param {object} [body] */
    async control(action, body) {
      const res = await fetch(`${base}/api/control/${action}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      if (!res.ok) throw new Error(`control ${action}: ${res.status}`);
      return res.json();
    },
    /** The server's current epoch, seq and state (a snapshot, by a short poll). */
    async snapshot() {
      const res = await fetch(`${base}/live/poll`);
      const [snap] = await res.json();
      return snap;
    },
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null) {
          resolve(undefined);
          return;
        }
        child.once('exit', () => resolve(undefined));
        child.kill('SIGTERM');
      });
    },
  };
}
