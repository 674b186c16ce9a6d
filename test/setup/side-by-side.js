// Two test runs at once, each in its own place on the CPU: the timed tests in the foreground, the
// rest beside them in a cgroup v1 `cpu` group of low weight (cpu.shares LOW_SHARES, where every
// process and session of the foreground weighs 1024): while the timed tests want the cores, the
// rest gets about a ninth of a contended core, and otherwise all of them. A timed test spends
// most of its time waiting (a clock settling, a window of beats, a radio cut), so alone it leaves
// the cores mostly idle; the other tests keep them busy instead, and the timed ones keep most of
// the CPU whenever they want it.
//
// Not `cpu.idle` (a group the kernel runs only when nothing else wants a core): beside three other
// helpers' work its tests were held up for seconds at a time (a server's 8 s liveness timer fired
// 12.2 s after; a bench process ran out of its 90 s), where a ninth of a core keeps a waiting
// test's timers within tens of milliseconds.
//
// The group needs the cgroup v1 `cpu` controller and the right to make a group (root: the venue
// lab's cells run as root, and so does CI). Where either is missing, the two runs go one after
// the other (the untimed first, as before), and the first line printed says why. Under autogroup
// scheduling a higher `nice` would not do: each browser Playwright starts is a session of its own,
// and so a scheduling group of its own.
//
// Used by test/setup/suites.js (`npm test`'s suites, `npm run test:unit`, `npm run test:browser`).

import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { makeChildGroup, ownCpuGroup, removeGroup } from '../../server/lib/cpu-group.js';

/** The weight of the untimed runs' group, against 1024 for a process or session at nice 0. */
export const LOW_SHARES = 128;

/**
 * A cgroup v1 `cpu` group of weight LOW_SHARES inside the group this process is in, or why there
 * is none.
 * @param {string} name  part of the group's name
 * @returns {{ dir: string } | { why: string }}
 */
export function makeLowGroup(name) {
  const own = ownCpuGroup();
  if ('why' in own) return own;
  // cpu.shares is cgroup v1's (v2 has cpu.weight, and groups only where no process is).
  if (own.version !== 1) return { why: 'no cgroup v1 cpu controller' };
  const low = makeChildGroup(own, `scorecast-${name}-${process.pid}`, [['cpu.shares', String(LOW_SHARES)]]);
  return 'why' in low ? low : { dir: low.dir };
}

export { removeGroup };

/**
 * @typedef {object} Run
 * @property {string} label  what it is, for the lines printed
 * @property {string[]} argv  the command (argv[0] a program path)
 * @property {Record<string, string>} [env]  added to this process's environment
 */

/**
 * Run a command; resolves with its exit code and its output (kept for the digest of failures).
 * @param {Run} run
 * @param {string} cwd
 * @param {{ group?: string, out?: import('node:fs').WriteStream }} [o] group: a cpu group (`sh`
 *   moves itself there and then becomes the command, so that every process it starts, a browser
 *   in a session of its own too, is born in the group); out: where its output goes (default: ours)
 * @returns {Promise<{ code: number, output: string }>}
 */
function start(run, cwd, { group, out } = {}) {
  const env = { ...process.env, ...run.env };
  const argv = group ? ['sh', '-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', group, ...run.argv] : run.argv;
  const child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  /** @type {Buffer[]} */
  const kept = [];
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (/** @type {Buffer} */ chunk) => {
      kept.push(chunk);
      if (out) out.write(chunk);
      else process.stdout.write(chunk);
    });
  }
  return new Promise((resolve) =>
    child.on('close', (code, signal) =>
      resolve({ code: code ?? (signal ? 1 : 0), output: Buffer.concat(kept).toString('utf8') }),
    ),
  );
}

/** Lines of a vitest or Playwright report that say what failed (at most DIGEST_LINES of them). */
const FAILURE_LINE =
  /^\s*(FAIL\s|×|✘|\d+\) \[|Test Files\s|Tests\s+\d|\d+ (failed|flaky)\b|(Assertion)?Error\b|Expected|Received|Timeout|AssertionError|Error:)/;
const DIGEST_LINES = 40;

/**
 * What a failed run's output says failed: its failing tests and their first error lines, so that
 * the end of the output (all that a CI log may keep) names them.
 * @param {string} output
 * @returns {string[]}
 */
export function failureDigest(output) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are removed
  const lines = output.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
  const picked = [];
  const seen = new Set();
  for (const line of lines) {
    const text = line.trimEnd();
    if (!FAILURE_LINE.test(text) || seen.has(text)) continue;
    seen.add(text);
    picked.push(text.length > 240 ? `${text.slice(0, 240)}…` : text);
  }
  return picked.length > DIGEST_LINES
    ? [...picked.slice(0, DIGEST_LINES), `… and ${picked.length - DIGEST_LINES} more lines`]
    : picked;
}

/** @typedef {{ label: string, output: string }} Failure */

/**
 * Runs one after the other; resolves with those that failed.
 * @param {Run[]} runs @param {string} cwd @param {{ group?: string, out?: import('node:fs').WriteStream }} [o]
 * @returns {Promise<Failure[]>}
 */
async function inTurn(runs, cwd, o) {
  const failed = [];
  for (const run of runs) {
    const { code, output } = await start(run, cwd, o);
    if (code) failed.push({ label: run.label, output });
  }
  return failed;
}

/**
 * Print, last, what each failed run says failed.
 * @param {Failure[]} failed
 */
function printDigest(failed) {
  for (const { label, output } of failed) {
    process.stdout.write(`\n--- failed: ${label} ---\n`);
    const lines = failureDigest(output);
    process.stdout.write(`${lines.length ? lines.join('\n') : '(no failing test named: its exit code only)'}\n`);
  }
}

/**
 * The timed runs in the foreground, one after the other, with their output as it comes; the
 * untimed runs one after the other beside them in a group of low weight, their output printed
 * whole at the end. Where there is no such group: the untimed runs, then the timed ones. Last,
 * for each run that failed, the lines of its output that name what failed.
 * @param {{ name: string, cwd: string, timed: Run[], untimed: Run[] }} o
 * @returns {Promise<string[]>} the labels of the runs that failed (none: all passed)
 */
export async function sideBySide({ name, cwd, timed, untimed }) {
  const names = (/** @type {Run[]} */ runs) => runs.map((r) => r.label).join(', ');
  const low = makeLowGroup(name);
  if ('why' in low) {
    console.log(`${name}: ${names(untimed)}; then ${names(timed)} (no cpu group: ${low.why})`);
    const failed = [...(await inTurn(untimed, cwd)), ...(await inTurn(timed, cwd))];
    printDigest(failed);
    return failed.map((f) => f.label);
  }
  console.log(
    `${name}: ${names(timed)} now; ${names(untimed)} beside them in a cpu group of low weight (their output follows)`,
  );
  const tmp = await mkdtemp(path.join(os.tmpdir(), `sc-${name.replace(/\W/g, '-')}-`));
  const file = path.join(tmp, 'untimed.log');
  const out = createWriteStream(file);
  try {
    const [a, b] = await Promise.all([inTurn(untimed, cwd, { group: low.dir, out }), inTurn(timed, cwd)]);
    await new Promise((resolve) => out.end(resolve));
    process.stdout.write(`\n--- ${name}: ${names(untimed)} (run beside the timed ones) ---\n`);
    process.stdout.write(await readFile(file, 'utf8'));
    printDigest([...a, ...b]);
    return [...a, ...b].map((f) => f.label);
  } finally {
    removeGroup(low.dir);
    await rm(tmp, { recursive: true, force: true });
  }
}
