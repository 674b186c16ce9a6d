// Scripted tempo of a ZScore piece: `sce.timedAction('tempo', <bpm>, <beats>)` makes ZScore's
// transport move to <bpm> over <beats> beats (ScoreScriptingEngine.timedAction ->
// setUpContinuousTempoChange). Scorecast's tempo changes at beats of the grid, so a ramp becomes
// one `meter` tempo entry per beat, in equal steps, reaching <bpm> on its last beat and staying
// there (until the score's next written tempo).

/**
 * @typedef {import('./timing.js').MeterEntry} MeterEntry
 * @typedef {import('./cues.js').TimedCall} TimedCall
 * @typedef {import('./cues.js').ReportItem} ReportItem
 */

/**
 * @param {TimedCall[]} calls  in beat order
 * @param {{ bar: number, bpm: number, time: [number, number] }[]} beats  every beat of the performance
 * @param {MeterEntry[]} meter  the written metre (from the BeatInfo rows)
 * @returns {{ meter: MeterEntry[], converted: ReportItem[], consumed: { source: string, what: string }[], ramps: number }}
 */
export function withTempoRamps(calls, beats, meter) {
  /** @type {ReportItem[]} */
  const converted = [];
  /** @type {{ source: string, what: string }[]} */
  const consumed = [];
  /** Tempo of each beat, written, then ramped. */
  const tempo = beats.map((b) => b.bpm);
  /** @type {Map<number, number>} beat -> ramped tempo */
  const set = new Map();
  let ramps = 0;
  for (const c of calls) {
    if (c.kind !== 'sce' || c.method !== 'timedAction' || c.args[0] !== 'tempo') continue;
    const [, end, length] = c.args;
    if (
      typeof end !== 'number' ||
      !(end > 0 && end <= 1000) ||
      !Number.isInteger(length) ||
      /** @type {number} */ (length) < 1 ||
      c.at >= beats.length
    )
      continue;
    const n = /** @type {number} */ (length);
    // ZScore's bpm counts tempo notes (quarters); scorecast's counts the beat's unit.
    const b = beats[c.at];
    const endBpm = round((end * b.time[1]) / 4);
    const start = c.at > 0 ? tempo[c.at - 1] : tempo[0];
    for (let k = 0; k < beats.length - c.at; k++) {
      const t = k < n ? round(start + ((endBpm - start) * (k + 1)) / n) : endBpm;
      // The ramp's end holds until the score writes another tempo.
      if (k >= n && beats[c.at + k].bpm !== beats[c.at + k - 1].bpm) break;
      tempo[c.at + k] = t;
      set.set(c.at + k, t);
    }
    ramps++;
    converted.push({
      source: c.source,
      what: c.text,
      result: `tempo from ${round(start)} to ${endBpm} over ${n} beats from beat ${c.at}, one meter entry a beat`,
    });
    consumed.push({ source: c.source, what: c.text });
  }
  if (set.size === 0) return { meter, converted, consumed, ramps };
  /** @type {Map<string, MeterEntry>} */
  const byPos = new Map(meter.map((e) => [`${e.bar}:${e.beat ?? 1}`, { ...e }]));
  for (const [i, t] of set) {
    const bar = beats[i].bar;
    let first = i;
    while (first > 0 && beats[first - 1].bar === bar) first--;
    const beat = i - first + 1;
    if (bar === 0) continue; // the pickup keeps the first tempo (the meter starts at bar 1)
    const key = `${bar}:${beat}`;
    const e = byPos.get(key) ?? { bar, ...(beat > 1 ? { beat } : {}) };
    byPos.set(key, { ...e, tempo: t });
  }
  const out = [...byPos.values()].sort((a, b) => a.bar - b.bar || (a.beat ?? 1) - (b.beat ?? 1));
  // Drop entries that repeat the tempo before them and change nothing else.
  /** @type {MeterEntry[]} */
  const kept = [];
  let current = NaN;
  for (const e of out) {
    if (e.time === undefined && e.tempo === current) continue;
    if (e.tempo !== undefined) current = e.tempo;
    kept.push(e);
  }
  return { meter: kept, converted, consumed, ramps };
}

/** @param {number} n */
function round(n) {
  return Math.round(n * 1000) / 1000;
}
