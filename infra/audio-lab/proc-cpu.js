// CPU time of each page's browser, process by process, from /proc: what the lab's own pages cost
// the machine they are measured on. Ten browsers on two cores share them with the device and the
// server, so a page that paints less leaves more for every page's audio path.

import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux everywhere). */
const TICKS_PER_S = 100;

/** @param {string} f */
const read = (f) => {
  try {
    return readFileSync(f, 'utf8');
  } catch {
    return '';
  }
};

/**
 * A process's kind, from its command line: Chromium's `--type=` (a utility by its sub-type's
 * service: `audio`, `network`, ...), else the program's name (`browser` for Chromium's own).
 * @param {string} cmdline NUL-separated, or one string with spaces: Chromium's zygote children
 *   rewrite their title so
 */
export function processKind(cmdline) {
  const args = cmdline.split(/[\0 ]/);
  const type = args.find((a) => a.startsWith('--type='))?.slice(7);
  if (type === 'utility') {
    const sub = args.find((a) => a.startsWith('--utility-sub-type='))?.slice(19) ?? '';
    return /^(\w+)\./.exec(sub)?.[1] ?? 'utility';
  }
  if (type) return type;
  const exe = (args[0] ?? '').split('/').pop() ?? '';
  return exe === 'chromium' ? 'browser' : exe;
}

/**
 * User plus system time (ticks) from /proc/<pid>/stat, and the parent's pid.
 * @param {string} stat
 */
export function parseStat(stat) {
  // The command name is in parentheses and may hold spaces: fields are counted after its ')'.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: f[1], ticks: Number(f[11]) + Number(f[12]) };
}

/**
 * One reading: for each process whose own environment or an ancestor's (up to four levels:
 * Chromium's renderers are the zygote's children) names one of `sinks` as PULSE_SINK, its sink,
 * kind and CPU ticks so far.
 * @param {string[]} sinks
 * @returns {Map<string, { sink: string, kind: string, ticks: number }>} by pid
 */
export function readCpu(sinks) {
  const wanted = new Set(sinks.map((s) => `PULSE_SINK=${s}`));
  /** @type {Map<string, string | null>} */
  const sinkOf = new Map();
  /** @param {string} pid */
  const sinkAbove = (pid) => {
    const seen = [];
    let found = null;
    for (let p = pid, up = 0; p && p !== '1' && up < 5; up++) {
      const known = sinkOf.get(p);
      if (known !== undefined) {
        found = known;
        break;
      }
      seen.push(p);
      const env = read(`/proc/${p}/environ`).split('\0');
      const hit = env.find((e) => wanted.has(e));
      if (hit) {
        found = hit.slice('PULSE_SINK='.length);
        break;
      }
      p = parseStat(read(`/proc/${p}/stat`)).ppid ?? '';
    }
    for (const p of seen) sinkOf.set(p, found);
    return found;
  };
  /** @type {Map<string, { sink: string, kind: string, ticks: number }>} */
  const out = new Map();
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    const sink = sinkAbove(pid);
    if (!sink) continue;
    const stat = read(`/proc/${pid}/stat`);
    if (!stat) continue;
    out.set(pid, { sink, kind: processKind(read(`/proc/${pid}/cmdline`)), ticks: parseStat(stat).ticks });
  }
  return out;
}

/**
 * Percent of one core each sink's processes used between two readings, by kind and in all.
 * A process that started in between counts from its start; one that ended is left out.
 * @param {ReturnType<typeof readCpu>} before
 * @param {ReturnType<typeof readCpu>} after
 * @param {number} seconds between the readings
 * @returns {Record<string, Record<string, number>>} sink -> kind (and `total`) -> % of a core
 */
export function cpuBetween(before, after, seconds) {
  /** @type {Record<string, Record<string, number>>} */
  const out = {};
  for (const [pid, a] of after) {
    const used = a.ticks - (before.get(pid)?.ticks ?? 0);
    const pct = (used / TICKS_PER_S / seconds) * 100;
    const bySink = (out[a.sink] ??= { total: 0 });
    bySink[a.kind] = (bySink[a.kind] ?? 0) + pct;
    bySink.total += pct;
  }
  for (const bySink of Object.values(out))
    for (const k of Object.keys(bySink)) bySink[k] = Math.round(bySink[k] * 10) / 10;
  return out;
}
