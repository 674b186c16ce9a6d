import { describe, it, expect } from 'vitest';
import { speakTile, speechOf, spokenText } from '../../../client/src/sound/speech.js';

class FakeUtterance {
  /** @param {string} text */
  constructor(text) {
    this.text = text;
    this.volume = 1;
    this.pitch = 1;
    this.rate = 1;
    this.lang = '';
  }
}
const synth = () => {
  /** @type {FakeUtterance[]} */
  const spoken = [];
  return {
    spoken,
    speak: (/** @type {FakeUtterance} */ u) => {
      spoken.push(u);
    },
  };
};

describe("phones that speak the tiles' words", () => {
  it("says the word with the cue's voice, in its template", () => {
    const s = synth();
    const speech = speechOf({
      speech: { enabled: true, text: 'I want @TILE_TEXT@.', volume: 0.4, pitch: 1.2, rate: 0.7, lang: 'en-GB' },
    });
    speakTile(s, FakeUtterance, speech, 'mega yacht');
    expect(s.spoken).toEqual([{ text: 'I want mega yacht.', volume: 0.4, pitch: 1.2, rate: 0.7, lang: 'en-GB' }]);
  });
  it('says nothing while speech is off, without a synthesizer, or for an empty word', () => {
    const s = synth();
    expect(speakTile(s, FakeUtterance, speechOf({ speech: { enabled: false } }), 'hope')).toBeNull();
    expect(speakTile(null, FakeUtterance, speechOf({ speech: { enabled: true } }), 'hope')).toBeNull();
    expect(speakTile(s, undefined, speechOf({ speech: { enabled: true } }), 'hope')).toBeNull();
    expect(speakTile(s, FakeUtterance, speechOf({ speech: { enabled: true } }), '')).toBeNull();
    expect(s.spoken).toEqual([]);
  });
  it('checks what the network sent and falls back to plain defaults', () => {
    expect(speechOf({})).toBeNull();
    expect(speechOf({ speech: { enabled: 'yes', volume: 9, rate: 0, lang: '<script>' } })).toEqual({
      enabled: false,
      text: '@TILE_TEXT@',
      volume: 1,
      pitch: 1,
      rate: 1,
      lang: '',
    });
    expect(spokenText({ enabled: true, text: 'Say', volume: 1, pitch: 1, rate: 1, lang: '' }, 'hope')).toBe('Say hope');
  });
});
