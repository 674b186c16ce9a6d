// Test certificates made with openssl at test time (infra/lab/test-ca.js): a test CA that only the
// test trusts, and leaves it signs (a venue name, another name, expiring soon, already expired).

export { testCa } from '../../infra/lab/test-ca.js';

/** The venue name the tests serve (.test is reserved: it never resolves outside a test). */
export const VENUE = 'score.venue.test';

/** @typedef {import('../../infra/lab/test-ca.js').Leaf} Leaf */
