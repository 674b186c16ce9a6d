// The audience cue's granulator on the phone: started on its beat on the server's clock (announced
// a beat ahead), once, stopped by its cue or the transport, its gain following the cue.

import { describe, expect, it } from 'vitest';
import { createPhoneSound, granulatorCueOf, granulatorStart } from '../../../client/src/sound/phone-sound.js';

const T = 1_700_000_000_000;

function setup() {
  /** @type {string[]} */
  const calls = [];
  const fakeGranulator = {
    grains: 0,
    configure() {},
    play(/** @type {number} */ at) {
      calls.push(`play ${at}`);
    },
    stop() {
      calls.push('stop');
    },
    gain(/** @type {number} */ v, /** @type {number} */ s) {
      calls.push(`gain ${v} ${s}`);
    },
    note(/** @type {number} */ at, /** @type {number} */ rate, /** @type {number} */ s) {
      calls.push(`note ${at} ${rate.toFixed(4)} ${s}`);
      return 1;
    },
  };
  const lib = /** @type {any} */ ({
    createGranulator: () => fakeGranulator,
    granulatorConfig: (/** @type {unknown} */ c) => c,
  });
  /** @type {string[]} */
  const tones = [];
  const param = () => ({ value: 0, setValueAtTime() {}, exponentialRampToValueAtTime() {} });
  const context = {
    currentTime: 7,
    destination: {},
    createOscillator() {
      const o = {
        type: '',
        frequency: { value: 0 },
        connect() {},
        start(/** @type {number} */ at) {
          tones.push(`${o.type} ${o.frequency.value.toFixed(2)} @${at}`);
        },
        stop() {},
      };
      return o;
    },
    createGain: () => ({ gain: param(), connect() {} }),
  };
  const audio = { unlocked: true, context, decode: async () => ({ duration: 5 }) };
  const sound = createPhoneSound({
    audio,
    clock: { toLocal: (t) => t - T },
    contextTime: (_ctx, local) => local / 1000,
    timers: /** @type {any} */ ({}),
    load: async () => lib,
  });
  return { sound, calls, tones, audio };
}

/** @param {number} beat @param {object} granulator @param {object} [extra] */
const state = (beat, granulator, extra = {}) => ({
  playback: 'playing',
  beat,
  beatT: T + beat * 500,
  cues: { audience: { granulator } },
  ...extra,
});
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('phone sound: the granulator cue', () => {
  it('reads the cue, refusing what is not a granulator', () => {
    expect(
      granulatorCueOf({ granulator: { src: '/a.mp3', play: 3, gain: 0.4, glide: 500, config: { maxGrains: 8 } } }),
    ).toEqual({ src: '/a.mp3', play: 3, gain: 0.4, glide: 500, config: { maxGrains: 8 } });
    expect(granulatorCueOf({ granulator: { src: 5, play: -1, gain: 3 } })).toMatchObject({
      src: null,
      play: null,
      gain: null,
    });
    expect(granulatorCueOf({})).toBeNull();
  });

  it("starts on the announced beat's server time, ahead of it", () => {
    const g = granulatorCueOf({ granulator: { src: '/a.mp3', play: null } });
    expect(
      granulatorStart(state(3, {}, { next: { beat: 4, t: T + 2000, granulator: ['audience'] } }), 'audience', g),
    ).toEqual({ beat: 4, serverT: T + 2000 });
    expect(granulatorStart(state(3, {}, { next: { beat: 4, t: T + 2000 } }), 'audience', g)).toBeNull();
    // a page that learnt it late starts on the beat it is on
    expect(granulatorStart(state(6, {}), 'audience', granulatorCueOf({ granulator: { src: '/a', play: 4 } }))).toEqual({
      beat: 4,
      serverT: T + 3000,
    });
    expect(
      granulatorStart(
        { ...state(6, {}), playback: 'paused' },
        'audience',
        granulatorCueOf({ granulator: { src: '/a', play: 4 } }),
      ),
    ).toBeNull();
  });

  it('plays once per start, on the Web Audio clock, and stops when the cue or the transport says', async () => {
    const { sound, calls } = setup();
    const g = { src: '/a.mp3', play: null, gain: 0.1, glide: 0 };
    sound.update(state(3, g, { next: { beat: 4, t: T + 2000, granulator: ['audience'] } }));
    await settle();
    await settle();
    expect(calls).toEqual(['gain 0.1 0', 'play 2']);
    sound.update(state(4, { ...g, play: 4 }));
    sound.update(state(5, { ...g, play: 4, gain: 0.5, glide: 8000 }));
    expect(calls).toEqual(['gain 0.1 0', 'play 2', 'gain 0.5 8']);
    expect(sound.history).toEqual([{ beat: 4, serverT: T + 2000, at: 2 }]);
    sound.update(state(6, { ...g, play: null, gain: 0.5 }));
    expect(calls.at(-1)).toBe('stop');
    sound.update(state(7, { ...g, play: 7, gain: 0.5 }));
    expect(calls.at(-1)).toBe('play 3.5');
  });
});

describe('phone sound: the note buttons', () => {
  it('sounds a synth note a semitone up or down from A4, within two octaves', () => {
    const { sound, tones } = setup();
    expect(sound.note('up')).toMatchObject({ direction: 'up', step: 1, engine: 'synth', at: 7.01 });
    sound.note('down');
    sound.note('down');
    expect(tones).toEqual(['triangle 466.16 @7.01', 'triangle 440.00 @7.01', 'triangle 415.30 @7.01']);
    for (let i = 0; i < 40; i++) sound.note('down');
    expect(sound.notes.at(-1)).toMatchObject({ step: -24, hz: 110 });
  });

  it('is silent before the page has sound, and goes through the granulator when its cue has one', async () => {
    const { sound, calls, audio, tones } = setup();
    audio.unlocked = false;
    expect(sound.note('up')).toBeNull();
    audio.unlocked = true;
    sound.update(state(3, { src: '/a.mp3', play: null }));
    await settle();
    await settle();
    expect(sound.note('down')).toMatchObject({ engine: 'granulator', step: -1 });
    expect(calls.at(-1)).toBe(`note 7.01 ${(2 ** (-1 / 12)).toFixed(4)} 0.4`);
    expect(tones).toEqual([]);
  });
});
