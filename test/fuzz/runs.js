// How hard the fuzz suite tries: a short run in `npm test` (FUZZ_RUNS unset), at least 10,000
// cases a target in `npm run fuzz`. A failing case prints its seed and path: rerun it with
// FUZZ_SEED=<seed> FUZZ_PATH=<path> npx vitest run test/fuzz/FILE.
import { ERRORS } from '../../core/errors.js';

export const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

/** fast-check parameters: the run count, and a seed and path to replay when given. */
export const params = () => ({
  numRuns: RUNS,
  ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED), path: process.env.FUZZ_PATH } : {}),
});

/**
 * Is this a code of the catalogue (core/errors.js, each documented in doc/errors.md)?
 * @param {unknown} code
 */
export const documented = (code) => typeof code === 'string' && Object.hasOwn(ERRORS, code);

/** Per-test timeout for a whole property at `RUNS` cases (ms). */
export const TIMEOUT = Math.max(20_000, RUNS * 20);
