// Reproducible randomness: a text hashed to a seed, and a seeded generator. The page choices of a
// score, the load plans of the QA suite and the benchmarks' generated scores all draw from it, so
// the same seed gives the same choices everywhere.

/**
 * A 32-bit hash of a text (FNV-1a), to seed the generator from the score, slot and seed.
 * @param {string} text
 */
export function hash32(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * A seeded generator of numbers in [0, 1) (mulberry32): the same seed, the same sequence.
 * @param {number} seed
 * @returns {() => number}
 */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
