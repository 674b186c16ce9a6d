// The soak's memory rule (npm run qa:soak): did the server's RSS grow after it was warm?

import { readFileSync } from 'node:fs';
import { median } from '../../core/stats.js';

/**
 * RSS after warm-up (median of the first minute) against the end (median of the last minute).
 * Warm means past the --warmup time and with the server's resync history full: the history is
 * bounded (512 deltas) but at 80 bpm takes 6.4 minutes to fill, and until then its growth is
 * the design, not a leak. The first minute counted starts when both hold (`baselineFrom`);
 * a run too short for the history to fill compares from the warm-up's end and says so.
 * @param {string} samplesFile  samples.jsonl of the soak (artillery/lib/sampler.js)
 */
export function soakRss(samplesFile) {
  return soakRssOf(
    readFileSync(samplesFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
  );
}

/**
 * The same, from the samples themselves.
 * @param {any[]} all
 */
export function soakRssOf(all) {
  const rows = all
    .map((s) => ({ ts: s.ts, phase: s.phase, rss: s.serverProc?.rss ?? s.server?.rss }))
    .filter((s) => s.phase === 'measured' && s.rss);
  if (rows.length < 2) return { baseline: null, end: null, max: null, growthPct: null };
  const last = rows[rows.length - 1].ts;
  const most = Math.max(0, ...all.map((s) => s.server?.historyDeltas ?? 0));
  const fullAt = most > 0 ? (all.find((s) => (s.server?.historyDeltas ?? 0) >= most)?.ts ?? null) : null;
  const counted = rows.filter((s) => fullAt === null || s.ts >= fullAt);
  const from = counted.length >= 2 && last - counted[0].ts >= 120_000 ? counted : rows;
  const first = from[0].ts;
  const win = Math.min(60_000, (last - first) / 4);
  const baseline = median(from.filter((s) => s.ts <= first + win).map((s) => s.rss));
  const end = median(from.filter((s) => s.ts >= last - win).map((s) => s.rss));
  return {
    baseline,
    end,
    max: Math.max(...rows.map((s) => s.rss)),
    growthPct: ((end - baseline) / baseline) * 100,
    windowS: win / 1000,
    baselineFrom: first,
    historyFullAt: fullAt,
    historyDeltas: most || null,
    historyFilled: from !== rows || fullAt === null || fullAt <= rows[0].ts,
  };
}
