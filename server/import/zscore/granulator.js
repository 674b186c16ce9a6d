// Phones that sound (ZScore's browser granulator, zsweb src/js/audio/zsGranulator.js): the load
// preset's (-2) `granulator` parameters and the scripts' playGranulator / stopGranulator /
// setGranulatorVolume(level, ms) / granulatorRampLinear(param, value, ms) / setGranulatorConfig
// become the audience cue's `granulator`: { src, config, play, gain, glide } (client/src/sound/phone-sound.js).
// The sound file itself is not in ZScore's export (its audience page loads it from the web app),
// so `src` stays null until the package's author adds the file: the report says so.

/**
 * @typedef {import('./cues.js').TimedCall} TimedCall
 * @typedef {import('./cues.js').ReportItem} ReportItem
 */

const METHODS = /^(playGranulator|stopGranulator|setGranulatorVolume|granulatorRampLinear|setGranulatorConfig)$/;

/**
 * A dotted parameter name (`grain.sizeMs`) as a nested patch.
 * @param {string} name @param {unknown} value
 * @returns {Record<string, unknown>}
 */
function nested(name, value) {
  const keys = name.split('.');
  /** @type {Record<string, unknown>} */
  let out = { [/** @type {string} */ (keys.pop())]: value };
  while (keys.length) out = { [/** @type {string} */ (keys.pop())]: out };
  return out;
}

/**
 * @param {TimedCall[]} calls  in beat order
 * @param {Map<number, import('./script.js').Preset>} presets
 * @param {string | null} [src]  the sound file in the package (import-zscore --granulator-sound)
 * @returns {{ cues: { at: number, set: Record<string, unknown> }[], converted: ReportItem[], consumed: { source: string, what: string }[], notes: string[] }}
 */
export function readGranulator(calls, presets, src = null) {
  /** @type {{ at: number, set: Record<string, unknown> }[]} */
  const cues = [];
  /** @type {ReportItem[]} */
  const converted = [];
  /** @type {{ source: string, what: string }[]} */
  const consumed = [];
  /** @type {string[]} */
  const notes = [];
  const used = calls.filter((c) => c.kind === 'web' && METHODS.test(c.method));
  if (used.length === 0) return { cues, converted, consumed, notes };
  const preset = presets.get(-2);
  const load = preset?.config.find((c) => c.name === 'granulator');
  /** @type {Record<string, unknown>} */
  const start = { src, play: null };
  if (load?.value && typeof load.value === 'object') {
    start.config = load.value;
    const gain = /** @type {{ masterGainVal?: unknown }} */ (load.value).masterGainVal;
    if (typeof gain === 'number' && gain >= 0 && gain <= 1) start.gain = gain;
    converted.push({
      source: `${preset?.file} line ${load.line}`,
      what: 'preset -2: config granulator',
      result: "the phones' granulator at beat 0: granulator.config (grains, envelope, position and size oscillators)",
    });
  }
  cues.push({ at: 0, set: { granulator: start } });
  notes.push(
    src
      ? `the granulator plays ${src} (given with --granulator-sound; ZScore's export has no sound file)`
      : "the granulator's sound file is not in ZScore's export (its audience page loads it from the web application): import again with --granulator-sound FILE, or add the file to the package and give its path as `src` in the `granulator` of the audience cue at beat 0, or the phones stay silent",
  );
  for (const c of used) {
    /** @type {Record<string, unknown> | null} */
    let patch = null;
    const [a, b, d] = c.args;
    if (c.method === 'playGranulator') patch = { play: c.at };
    else if (c.method === 'stopGranulator') patch = { play: null };
    else if (c.method === 'setGranulatorVolume' && typeof a === 'number' && a >= 0 && a <= 1)
      patch = { gain: a, glide: typeof b === 'number' && b >= 0 ? b : 0 };
    else if (c.method === 'granulatorRampLinear' && a === 'masterGainVal' && typeof b === 'number' && b >= 0 && b <= 1)
      patch = { gain: b, glide: typeof d === 'number' && d >= 0 ? d : 0 };
    else if (
      c.method === 'granulatorRampLinear' &&
      typeof a === 'string' &&
      /^[A-Za-z]+(\.[A-Za-z]+)*$/.test(a) &&
      typeof b === 'number'
    )
      patch = { config: nested(a, b) };
    else if (c.method === 'setGranulatorConfig' && a && typeof a === 'object' && !Array.isArray(a)) {
      /** @type {Record<string, unknown>} */
      let config = {};
      for (const [k, v] of Object.entries(a))
        if (/^[A-Za-z]+(\.[A-Za-z]+)*$/.test(k)) config = mergeDeep(config, nested(k, v));
      patch = { config };
    }
    if (!patch) continue;
    cues.push({ at: c.at, set: { granulator: patch } });
    converted.push({
      source: c.source,
      what: c.text,
      result: `cue at beat ${c.at}: granulator ${JSON.stringify(patch)}`,
    });
    consumed.push({ source: c.source, what: c.text });
  }
  return { cues, converted, consumed, notes };
}

/**
 * @param {Record<string, unknown>} a @param {Record<string, unknown>} b
 * @returns {Record<string, unknown>}
 */
function mergeDeep(a, b) {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      prev && typeof prev === 'object' && v && typeof v === 'object'
        ? mergeDeep(/** @type {Record<string, unknown>} */ (prev), /** @type {Record<string, unknown>} */ (v))
        : v;
  }
  return out;
}
