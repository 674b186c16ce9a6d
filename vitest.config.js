import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The files whose checks are timed, or that fail when a process is held up for a second: Chromium
 * pages whose beats, cuts and sounds are timed (the venue lab's roaming cell, the venue address,
 * the audio onset lab), the server's liveness bounds (a dead link cut within 8.25 s), the
 * hostile-client bench, and every cluster (a conductor's lease lives 1 s: a node held up longer
 * loses it, and its standby takes over mid-test). `npm test` (test/setup/suites.js) runs them two
 * at a time in the foreground, one group after the other, and the other files beside them in a
 * CPU group of low weight, where a cluster lab's conductor lost its lease and three of 40 votes
 * (full15).
 *
 * Two groups, so that the venue lab's cells never run beside a file that loads the CPU itself:
 * beside the hostile bench's floods (or the audio lab's pages) the lab's smoke cell once saw a
 * push 1,009 ms late against its 1,000 ms budget (ci3; 31 ms alone).
 */
export const TIMED_GROUPS = {
  /** The venue lab (two and a half minutes) beside files that mostly wait. */
  lab: [
    'test/infra/lab.test.js',
    'test/infra/cluster-lab.test.js',
    'test/server/live/transports/websocket.test.js',
    'test/server/cluster/*.test.js',
  ],
  /**
   * Files that load the CPU themselves: floods, a reconnect storm, Chromium pages with sound,
   * HTTPS pages. The storm's 300 clients were back in 0.5 s in the foreground; in the CPU group of
   * low weight (a local run at load 6) 299 of them were given a snapshot, as the server does
   * for a client too slow to be sent deltas (history.js's resync rule, fan-out.js's behind rule),
   * failing the check of none.
   */
  busy: [
    'test/bench/hostile.test.js',
    'test/bench/storm.test.js',
    'test/infra/audio-lab.test.js',
    'test/infra/venue-https.test.js',
  ],
};
export const TIMED = [...TIMED_GROUPS.lab, ...TIMED_GROUPS.busy];

/** The files this process runs (test/setup/suites.js), or undefined: all of them. */
const PHASE = process.env.SCORECAST_VITEST_PHASE;
/** With PHASE 'timed': one group of TIMED_GROUPS, or undefined: all of TIMED. */
const GROUP = /** @type {keyof typeof TIMED_GROUPS | undefined} */ (process.env.SCORECAST_VITEST_GROUP);

export default defineConfig({
  test: {
    include: PHASE === 'timed' ? (GROUP ? TIMED_GROUPS[GROUP] : TIMED) : ['test/**/*.test.js'],
    // WebKit and Firefox run on their own after the Chromium specs (test/engines/vitest.config.js).
    exclude: [...configDefaults.exclude, 'test/engines/**', ...(PHASE === 'rest' ? TIMED : [])],
    environment: 'node',
    // Beside the timed files, in the CPU group of low weight, a file gets about a ninth of a core
    // while the timed ones want both: a fuzz or engraving test that takes 5 s alone took over 20 s
    // there (a clean clone's run beside four other jobs). Its timeout guards against a hang, and
    // none of these files is timed, so it is longer there.
    testTimeout: PHASE === 'rest' ? 90_000 : 20_000,
    hookTimeout: PHASE === 'rest' ? 60_000 : 10_000,
    // Integration tests open real sockets on loopback; files run in parallel processes.
    pool: 'forks',
    // Two at a time whatever the machine: most files wait on sockets, timers and the venue lab's
    // cuts (the roaming cell alone is 2 minutes), so two halve the suite's time on a 2-core
    // machine (387 -> 218 s), where the default ran one; more would load the timed checks with CPU
    // contention. Split by test/setup/suites.js: the timed files two at a time (the roaming cell,
    // 2 of their 3 minutes, beside the others, which mostly wait), the other files
    // three at a time in a CPU group of low weight, where they take mostly what the timed ones
    // leave (three kept a 2-core machine 88% busy, 262 s for every file).
    maxWorkers: PHASE === 'rest' ? 3 : 2,
  },
});
