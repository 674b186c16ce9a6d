// Phones that speak (ZScore's speech synthesis, zsweb src/js/audio/zsSpeech.js): in Union Rose a
// tap on a tile makes the phone say the tile's word, with the voice settings of the web score's
// load preset (-2, `speechSynth`) and the scripts' enableSpeechSynth / disableSpeechSynth /
// setSpeechText('I want @TILE_TEXT@.') / setSpeechSynthConfigParam / rampLinearSpeechParam.
// They become the audience cue's `speech`: { enabled, text, volume, pitch, rate, lang }. A ramp
// (`rampLinearSpeechParam('volume', 0.5, 8)`: to 0.5 over 8 s) becomes one step a beat, from the
// value before to the ramp's value on the first beat at or after its end.

/**
 * @typedef {import('./cues.js').TimedCall} TimedCall
 * @typedef {import('./cues.js').ReportItem} ReportItem
 */

/** Settings a phone's speech takes, with what each may be. */
const PARAMS = /** @type {Record<string, (v: unknown) => boolean>} */ ({
  volume: (v) => typeof v === 'number' && v >= 0 && v <= 1,
  pitch: (v) => typeof v === 'number' && v >= 0 && v <= 2,
  rate: (v) => typeof v === 'number' && v >= 0.1 && v <= 10,
  lang: (v) => typeof v === 'string' && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(v),
});

/**
 * @param {TimedCall[]} calls  in beat order
 * @param {Map<number, import('./script.js').Preset>} presets
 * @param {number[]} [beatMs]  the start (ms) of every beat, for ramps; without it a ramp is a step
 * @returns {{ cues: { at: number, set: Record<string, unknown> }[], converted: ReportItem[], consumed: { source: string, what: string }[] }}
 */
export function readSpeech(calls, presets, beatMs = []) {
  /** @type {{ at: number, set: Record<string, unknown> }[]} */
  const cues = [];
  /** @type {ReportItem[]} */
  const converted = [];
  /** @type {{ source: string, what: string }[]} */
  const consumed = [];
  const used = calls.filter(
    (c) =>
      c.kind === 'web' &&
      /^(enableSpeechSynth|disableSpeechSynth|setSpeechText|setSpeechSynthConfigParam|rampLinearSpeechParam)$/.test(
        c.method,
      ),
  );
  if (used.length === 0) return { cues, converted, consumed };
  // The load preset's voice: ZScore applies preset -2 when the audience page is reset.
  const load = presets.get(-2)?.config.find((c) => c.name === 'speechSynth');
  /** @type {Record<string, unknown>} */
  const start = { enabled: false };
  if (load?.value && typeof load.value === 'object') {
    for (const [k, v] of Object.entries(load.value)) if (PARAMS[k]?.(v)) start[k] = v;
    converted.push({
      source: `${presets.get(-2)?.file} line ${load.line}`,
      what: 'preset -2: config speechSynth',
      result: `the phones' voice at beat 0: speech ${JSON.stringify(start)}`,
    });
  }
  cues.push({ at: 0, set: { speech: start } });
  /** The values as the cues so far leave them (ZScore's defaults where none). */
  /** @type {Record<string, unknown>} */
  const current = { volume: 1, pitch: 1, rate: 1, ...start };
  for (const c of used) {
    /** @type {Record<string, unknown> | null} */
    let patch = null;
    let how = '';
    if (c.method === 'enableSpeechSynth') {
      patch = { enabled: true };
      how = 'a tap on a lit tile speaks its word';
    } else if (c.method === 'disableSpeechSynth') {
      patch = { enabled: false };
      how = 'taps no longer speak';
    } else if (c.method === 'setSpeechText' && typeof c.args[0] === 'string') {
      patch = { text: c.args[0].slice(0, 200) };
      how = "what a tap says (@TILE_TEXT@ is the tile's word)";
    } else if (
      (c.method === 'setSpeechSynthConfigParam' || c.method === 'rampLinearSpeechParam') &&
      typeof c.args[0] === 'string' &&
      PARAMS[c.args[0]]?.(c.args[1])
    ) {
      patch = { [c.args[0]]: c.args[1] };
      how = 'set';
      const [param, to, seconds] = c.args;
      const from = current[param];
      if (
        c.method === 'rampLinearSpeechParam' &&
        typeof seconds === 'number' &&
        seconds > 0 &&
        typeof from === 'number' &&
        typeof to === 'number' &&
        beatMs[c.at] !== undefined
      ) {
        const steps = rampSteps(beatMs, c.at, seconds * 1000, from, to);
        for (const s of steps.slice(0, -1)) cues.push({ at: s.at, set: { speech: { [param]: s.value } } });
        const last = steps.at(-1);
        if (last) {
          current[param] = to;
          cues.push({ at: last.at, set: { speech: { [param]: to } } });
          converted.push({
            source: c.source,
            what: c.text,
            result: `cues at beats ${steps[0].at}..${last.at}: speech.${param} from ${from} to ${to} in ${steps.length} steps, one a beat`,
          });
          consumed.push({ source: c.source, what: c.text });
          continue;
        }
      }
    }
    if (!patch) continue;
    Object.assign(current, patch);
    cues.push({ at: c.at, set: { speech: patch } });
    converted.push({
      source: c.source,
      what: c.text,
      result: `cue at beat ${c.at}: speech ${JSON.stringify(patch)}: ${how}`,
    });
    consumed.push({ source: c.source, what: c.text });
  }
  return { cues, converted, consumed };
}

/**
 * A linear ramp over `ms` from the beat `at`, as one value a beat: the beats after `at` up to the
 * first at or after the ramp's end (which gets `to`), or the last beat of the score.
 * @param {number[]} beatMs @param {number} at @param {number} ms @param {number} from @param {number} to
 * @returns {{ at: number, value: number }[]}
 */
export function rampSteps(beatMs, at, ms, from, to) {
  /** @type {{ at: number, value: number }[]} */
  const out = [];
  for (let b = at + 1; b < beatMs.length; b++) {
    const k = Math.min(1, (beatMs[b] - beatMs[at]) / ms);
    out.push({ at: b, value: Math.round((from + (to - from) * k) * 1000) / 1000 });
    if (k >= 1) break;
  }
  if (out.length === 0) out.push({ at, value: to });
  return out;
}
