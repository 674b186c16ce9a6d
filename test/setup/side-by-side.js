// Two test runs at once, each in its own place on the CPU: the timed tests in the foreground, the
// rest beside them in a CPU group marked idle (the kernel's SCHED_IDLE for a whole group: it gets
// the cores only while nothing else wants them, and a timed test that wakes takes a core from it
// at once). A timed test spends most of its time waiting (a clock settling, a window of beats, a
// radio cut), so alone it leaves the cores mostly idle; the other tests keep them busy instead, and
// the timed tests keep the machine to themselves as far as the CPU goes.
//
// The idle group needs the cgroup v1 `cpu` controller with `cpu.idle` (Linux 5.15+) and the right
// to make a group (root: the venue lab's cells run as root, and so does CI). Where either is
// missing, the two runs go one after the other (the untimed first, as before), and the first
// line printed says why. Under autogroup scheduling a lower `nice` would not do: each browser
// Playwright starts is a session of its own, and so a scheduling group of its own.
//
// Used by test/setup/suites.js (`npm test`'s suites, `npm run test:unit`, `npm run test:browser`).

import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * A cgroup v1 `cpu` group marked idle, inside the group this process is in, or why there is none.
 * @param {string} name  part of the group's name
 * @returns {{ dir: string } | { why: string }}
 */
export function makeIdleGroup(name) {
  let own;
  try {
    const line = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .find((l) => l.split(':')[1]?.split(',').includes('cpu'));
    if (!line) return { why: 'no cgroup v1 cpu controller' };
    own = line.split(':').slice(2).join(':') || '/';
  } catch (e) {
    return { why: `cannot read /proc/self/cgroup (${/** @type {Error} */ (e).message})` };
  }
  const dir = path.join('/sys/fs/cgroup/cpu', own, `scorecast-${name}-${process.pid}`);
  try {
    mkdirSync(dir);
  } catch (e) {
    return { why: `cannot make a cpu group at ${dir} (${/** @type {NodeJS.ErrnoException} */ (e).code})` };
  }
  try {
    writeFileSync(path.join(dir, 'cpu.idle'), '1');
  } catch (e) {
    removeGroup(dir);
    return { why: `no cpu.idle in ${dir} (${/** @type {NodeJS.ErrnoException} */ (e).code})` };
  }
  return { dir };
}

/**
 * Remove a group once its processes have exited (a straggler keeps it until the next boot).
 * @param {string} dir
 */
export function removeGroup(dir) {
  for (let i = 0; i < 50; i++) {
    try {
      rmdirSync(dir);
      return;
    } catch {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
}

/**
 * @typedef {object} Run
 * @property {string} label  what it is, for the lines printed
 * @property {string[]} argv  the command (argv[0] a program path)
 * @property {Record<string, string>} [env]  added to this process's environment
 */

/**
 * Run a command; resolves with its exit code.
 * @param {Run} run
 * @param {string} cwd
 * @param {{ group?: string, out?: import('node:fs').WriteStream }} [o] group: a cpu group (`sh`
 *   moves itself there and then becomes the command, so that every process it starts, a browser
 *   in a session of its own too, is born in the group); out: where its output goes (default: ours)
 * @returns {Promise<number>}
 */
function start(run, cwd, { group, out } = {}) {
  const env = { ...process.env, ...run.env };
  const argv = group ? ['sh', '-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', group, ...run.argv] : run.argv;
  const child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: out ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  if (out) {
    child.stdout?.pipe(out, { end: false });
    child.stderr?.pipe(out, { end: false });
  }
  return new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

/**
 * Runs one after the other; resolves with the labels of those that failed.
 * @param {Run[]} runs @param {string} cwd @param {{ group?: string, out?: import('node:fs').WriteStream }} [o]
 * @returns {Promise<string[]>}
 */
async function inTurn(runs, cwd, o) {
  const failed = [];
  for (const run of runs) if (await start(run, cwd, o)) failed.push(run.label);
  return failed;
}

/**
 * The timed runs in the foreground, one after the other, with their output as it comes; the
 * untimed runs one after the other beside them in an idle group, their output printed whole at
 * the end. Where there is no idle group: the untimed runs, then the timed ones.
 * @param {{ name: string, cwd: string, timed: Run[], untimed: Run[] }} o
 * @returns {Promise<string[]>} the labels of the runs that failed (none: all passed)
 */
export async function sideBySide({ name, cwd, timed, untimed }) {
  const names = (/** @type {Run[]} */ runs) => runs.map((r) => r.label).join(', ');
  const idle = makeIdleGroup(name);
  if ('why' in idle) {
    console.log(`${name}: ${names(untimed)}; then ${names(timed)} (no idle cpu group: ${idle.why})`);
    return [...(await inTurn(untimed, cwd)), ...(await inTurn(timed, cwd))];
  }
  console.log(
    `${name}: ${names(timed)} now; ${names(untimed)} beside them in an idle cpu group (their output follows)`,
  );
  const tmp = await mkdtemp(path.join(os.tmpdir(), `sc-${name.replace(/\W/g, '-')}-`));
  const file = path.join(tmp, 'untimed.log');
  const out = createWriteStream(file);
  try {
    const [a, b] = await Promise.all([inTurn(untimed, cwd, { group: idle.dir, out }), inTurn(timed, cwd)]);
    await new Promise((resolve) => out.end(resolve));
    process.stdout.write(`\n--- ${name}: ${names(untimed)} (run beside the timed ones) ---\n`);
    process.stdout.write(await readFile(file, 'utf8'));
    return [...a, ...b];
  } finally {
    removeGroup(idle.dir);
    await rm(tmp, { recursive: true, force: true });
  }
}
