// Phones that speak (an imported ZScore piece, server/import/zscore/speech.js): while the audience cue's
// `speech.enabled` is true, a tap on a lit tile says the tile's word through the browser's
// SpeechSynthesis, with the cue's voice settings; `speech.text` may wrap the word
// ("I want @TILE_TEXT@."). The cue comes from the network: every value is checked.

/**
 * @typedef {object} Speech
 * @property {boolean} enabled
 * @property {string} text     template: the word stands where it says TILE_TEXT between at signs
 * @property {number} volume   0..1
 * @property {number} pitch    0..2
 * @property {number} rate     0.1..10
 * @property {string} lang     BCP 47, or '' for the browser's
 */

/**
 * @param {unknown} cue  the audience cue state
 * @returns {Speech | null}  null when the piece has no speech
 */
export function speechOf(cue) {
  const s = /** @type {any} */ (cue)?.speech;
  if (!s || typeof s !== 'object') return null;
  const num = (
    /** @type {unknown} */ v,
    /** @type {number} */ lo,
    /** @type {number} */ hi,
    /** @type {number} */ d,
  ) => (typeof v === 'number' && v >= lo && v <= hi ? v : d);
  return {
    enabled: s.enabled === true,
    text: typeof s.text === 'string' ? s.text.slice(0, 200) : '@TILE_TEXT@',
    volume: num(s.volume, 0, 1, 1),
    pitch: num(s.pitch, 0, 2, 1),
    rate: num(s.rate, 0.1, 10, 1),
    lang: typeof s.lang === 'string' && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(s.lang) ? s.lang : '',
  };
}

/**
 * What a tap on a tile says.
 * @param {Speech} speech
 * @param {string} word
 */
export function spokenText(speech, word) {
  return speech.text.includes('@TILE_TEXT@')
    ? speech.text.replaceAll('@TILE_TEXT@', word)
    : `${speech.text} ${word}`.trim();
}

/**
 * Say a tile's word now. Returns the utterance, or null when the browser cannot speak or speech
 * is off.
 * @param {{ speak(u: any): void } | undefined | null} synth  window.speechSynthesis
 * @param {(new (text: string) => any) | undefined} Utterance  window.SpeechSynthesisUtterance
 * @param {Speech | null} speech
 * @param {string} word
 */
export function speakTile(synth, Utterance, speech, word) {
  if (!synth || !Utterance || !speech?.enabled || word === '') return null;
  const u = new Utterance(spokenText(speech, word));
  u.volume = speech.volume;
  u.pitch = speech.pitch;
  u.rate = speech.rate;
  if (speech.lang) u.lang = speech.lang;
  synth.speak(u);
  return u;
}
