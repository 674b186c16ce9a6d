// How many clients arrive when, per scenario: Artillery phases and variables for N users, for the
// warm-up run and the measured run. The scenario files hold the flows and the budgets.

import { writeFileSync } from 'node:fs';
import { seededRandom } from '../../core/random.js';

export const SCENARIOS = ['poll', 'ws', 'sse', 'page', 'mixed'];

/** Seed method: clients arrive over a 10 s ramp (JMeter's ramp-up; the custom client's connect phase). */
export const RAMP_S = 10;
/** Page scenario: groups start at random moments within this window. */
export const PAGE_WINDOW_MS = 10_000;

/** Deterministic random numbers, so a plan can be repeated. */
const rng = seededRandom;

/**
 * Groups of 1..5 clients, exactly `clients` in all, each starting at a random moment.
 * @param {number} clients @param {number} windowMs @param {number} [seed]
 */
export function pageGroups(clients, windowMs, seed = 2019) {
  const r = rng(seed + clients);
  const rows = [];
  let n = 0;
  while (n < clients) {
    const size = Math.min(1 + Math.floor(r() * 5), clients - n);
    rows.push({ size, delayMs: Math.round(r() * windowMs) });
    n += size;
  }
  return rows;
}

/**
 * Artillery overrides for one run.
 * @param {string} scenario
 * @param {number} users
 * @param {{ warmup?: boolean, payloadFile?: string, rampS?: number }} [opts]
 * @returns {{ overrides: { config: Record<string, unknown> }, describe: string }}
 */
export function plan(scenario, users, { warmup = false, payloadFile, rampS = RAMP_S } = {}) {
  const ramp = warmup ? 5 : rampS;
  const beats = warmup ? 4 : 16;
  const polls = warmup ? 6 : 23;
  const phases = [{ name: warmup ? 'warm-up' : 'measured', duration: ramp, arrivalCount: users }];
  switch (scenario) {
    case 'ws':
    case 'sse':
      return {
        overrides: { config: { phases, variables: { beats, rampMs: ramp * 1000 } } },
        describe: `${users} ${scenario} clients connect over ${ramp} s, then each receives ${beats} deltas`,
      };
    case 'poll':
      return {
        overrides: { config: { phases, variables: { polls, pollMs: 500 } } },
        describe: `${users} clients arrive over ${ramp} s; each loads the page, then polls ${polls} times at 500 ms`,
      };
    case 'mixed':
      return {
        overrides: { config: { phases, variables: { beats, rampMs: ramp * 1000, polls, pollMs: 500, tapEvery: 4 } } },
        describe: `${users} clients (70% ws, 20% sse, 10% poll) arrive over ${ramp} s; each loads the page; live clients stay ${beats} beats after the ramp, pollers poll ${polls} times`,
      };
    case 'page': {
      const windowMs = warmup ? 3000 : PAGE_WINDOW_MS;
      const rows = pageGroups(users, windowMs);
      if (!payloadFile) throw new Error('page plan needs a payload file');
      writeFileSync(payloadFile, `size,delayMs\n${rows.map((g) => `${g.size},${g.delayMs}`).join('\n')}\n`);
      return {
        overrides: {
          config: {
            phases: [{ name: warmup ? 'warm-up' : 'measured', duration: 1, arrivalCount: rows.length }],
            payload: [{ path: payloadFile, fields: ['size', 'delayMs'], order: 'sequence', skipHeader: true }],
          },
        },
        describe: `${users} clients in ${rows.length} groups of 1-5, each group starting at a random moment within ${windowMs / 1000} s; each client loads the whole page`,
      };
    }
    default:
      throw new Error(`unknown scenario "${scenario}" (one of ${SCENARIOS.join(', ')})`);
  }
}

/**
 * The soak's held mixed load: sessions of about a minute (random length), a steady arrival rate
 * that keeps about `users` clients connected.
 * @param {number} users @param {number} durationS @param {number} warmupS
 */
export function soakPlan(users, durationS, warmupS) {
  const meanSessionS = 60;
  const rate = users / meanSessionS;
  return {
    overrides: {
      config: {
        // arrivalCount spread over the phase: Artillery's arrivalRate must be a whole number.
        phases: [
          { name: 'warm-up', duration: warmupS, arrivalCount: Math.max(1, Math.round(rate * warmupS)) },
          {
            name: 'measured',
            duration: Math.max(1, durationS - warmupS),
            arrivalCount: Math.max(1, Math.round(rate * (durationS - warmupS))),
          },
        ],
        variables: {
          beats: 48,
          beatsMax: 112,
          rampMs: 0,
          polls: 80,
          pollsMax: 160,
          pollMs: 500,
          tapEvery: 4,
          warmupMs: warmupS * 1000,
        },
      },
    },
    describe: `mixed audience (70% ws, 20% sse, 10% poll, page load first) arriving at ${rate.toFixed(2)}/s with sessions of 36-84 s (about ${users} connected); ${warmupS} s warm-up, then ${durationS - warmupS} s measured`,
  };
}
