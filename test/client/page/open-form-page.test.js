// The open form's parts of a page (open-form-page.js) on jsdom with the real index.html: the meter
// drawn from the state, the thumbs sent on the WebSocket (or over HTTP without one) at most twice a
// second, a part's key taken from the address and kept, and the choice of the next section sent
// with it only when the offer names this part.

import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { JSDOM } from 'jsdom';
import { createOpenFormPage, partKeyOf, userNumberOf, NOTE_GAP_MS } from '../../../client/src/page/open-form-page.js';

const html = readFileSync(new URL('../../../client/index.html', import.meta.url), 'utf8');
const KEY = 'abcdefghijklmnopqrstuv';
const CREDENTIAL = 'AAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBB';
const SWITCHES = { notes: false, audio: true, thumbs: true, meter: true, vote: true };

/** @param {{ audience?: boolean, view?: string, partKey?: string | null, sends?: boolean }} [o] */
function page({ audience = true, view = 'audience', partKey = null, sends = true } = {}) {
  const { window } = new JSDOM(html);
  const document = window.document;
  /** @type {unknown[]} */
  const sent = [];
  /** @type {string[]} */
  const notes = [];
  /** @type {{ url: string, init: any }[]} */
  const posted = [];
  let t = 0;
  const form = createOpenFormPage(document, {
    view,
    audience,
    fetch: async (url, init) => {
      posted.push({ url, init });
      return { ok: true, status: 200, json: async () => ({}) };
    },
    send: (m) => {
      if (sends) sent.push(m);
      return sends;
    },
    device: async () => CREDENTIAL,
    partKey,
    now: () => t,
    onNote: (d) => notes.push(d),
  });
  const advance = (/** @type {number} */ ms) => {
    t += ms;
  };
  return { document, form, sent, posted, advance, notes };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('the open form on a page', () => {
  it('draws the meter and the thumbs as the section says, and sends thumbs at most twice a second', async () => {
    const { document, form, sent, advance } = page();
    form.render({ section: { id: 'a', options: [], audience: SWITCHES }, meter: -0.5 });
    const meter = /** @type {HTMLElement} */ (document.getElementById('meter'));
    expect(meter.hidden).toBe(false);
    expect(meter.dataset.value).toBe('-0.5');
    expect(/** @type {HTMLElement} */ (document.getElementById('thumbs')).hidden).toBe(false);
    /** @type {HTMLElement} */ (document.getElementById('thumb-up')).click();
    /** @type {HTMLElement} */ (document.getElementById('thumb-down')).click();
    await settle();
    expect(sent).toEqual([{ type: 'thumb', value: 'up', device: CREDENTIAL }]);
    advance(500);
    /** @type {HTMLElement} */ (document.getElementById('thumb-down')).click();
    await settle();
    expect(sent.at(-1)).toEqual({ type: 'thumb', value: 'down', device: CREDENTIAL });
    form.render({ section: { id: 'b', options: [], audience: { ...SWITCHES, thumbs: false, meter: false } } });
    expect(meter.hidden).toBe(true);
    expect(/** @type {HTMLElement} */ (document.getElementById('thumbs')).hidden).toBe(true);
    expect(form.allows('vote', { section: { id: 'b', options: [], audience: { ...SWITCHES, vote: false } } })).toBe(
      false,
    );
    expect(form.allows('vote', {})).toBe(true);
    // The audio switch: a section may silence the score's sound on the phones.
    expect(form.allows('audio', { section: { id: 'c', options: [], audience: { ...SWITCHES, audio: false } } })).toBe(
      false,
    );
    expect(form.allows('audio', { section: { id: 'a', options: [], audience: SWITCHES } })).toBe(true);
  });

  it('shows the note buttons while the section says, and passes presses on at most four a second', async () => {
    const { document, form, notes, advance } = page();
    const shown = /** @type {HTMLElement} */ (document.getElementById('notes'));
    const up = /** @type {HTMLElement} */ (document.getElementById('note-up'));
    const down = /** @type {HTMLElement} */ (document.getElementById('note-down'));
    form.render({ section: { id: 'a', options: [], audience: SWITCHES } });
    expect(shown.hidden).toBe(true);
    up.click();
    expect(notes).toEqual([]);
    form.render({ section: { id: 'a', options: [], audience: { ...SWITCHES, notes: true } } });
    expect(shown.hidden).toBe(false);
    up.click();
    down.click();
    advance(NOTE_GAP_MS);
    down.click();
    expect(notes).toEqual(['up', 'down']);
    form.render({ section: { id: 'b', options: [], audience: SWITCHES } });
    advance(NOTE_GAP_MS);
    up.click();
    expect(shown.hidden).toBe(true);
    expect(notes).toEqual(['up', 'down']);
  });

  it('shows a phone its user number on an open-form piece, the same for the same credential', async () => {
    const { document, form } = page();
    const n = /** @type {HTMLElement} */ (document.getElementById('user-number'));
    form.render({});
    await settle();
    expect(n.hidden).toBe(true);
    form.render({ section: { id: 'a', options: [], audience: SWITCHES } });
    await settle();
    expect(n.hidden).toBe(false);
    expect(n.textContent).toBe(`You are no. ${userNumberOf(CREDENTIAL)}`);
    expect(userNumberOf(CREDENTIAL)).toBe(100);
    expect(userNumberOf(`AAAAB${'A'.repeat(17)}.x`)).toBe(101);
    expect(userNumberOf('nope')).toBeNull();
    const part = page({ audience: false, view: 'violin' });
    part.form.render({ section: { id: 'a', options: [], audience: SWITCHES } });
    await settle();
    expect(/** @type {HTMLElement} */ (part.document.getElementById('user-number')).hidden).toBe(true);
  });

  it('without a WebSocket, a thumb goes over HTTP', async () => {
    const { document, form, posted } = page({ sends: false });
    form.render({ section: { id: 'a', options: [], audience: SWITCHES }, meter: 0 });
    /** @type {HTMLElement} */ (document.getElementById('thumb-up')).click();
    await settle();
    expect(posted.map((p) => [p.url, JSON.parse(p.init.body)])).toEqual([
      ['/api/thumb', { value: 'up', device: CREDENTIAL }],
    ]);
  });

  it('a part page shows the meter, and the choice only when the offer names its part', async () => {
    const { document, form, posted } = page({ audience: false, view: 'violin', partKey: KEY });
    const offer = {
      id: 'pitch',
      round: 1,
      options: [
        { id: 'rhythm', name: 'Rhythm' },
        { id: 'end', name: 'End' },
      ],
    };
    form.render({ section: { ...offer, chooser: 'part:cello', audience: { ...SWITCHES, meter: false } }, meter: 0.2 });
    expect(/** @type {HTMLElement} */ (document.getElementById('meter')).hidden).toBe(false);
    expect(/** @type {HTMLElement} */ (document.getElementById('thumbs')).hidden).toBe(true);
    expect(/** @type {HTMLElement} */ (document.getElementById('section-choice')).hidden).toBe(true);
    form.render({ section: { ...offer, chooser: 'part:violin' } });
    expect(/** @type {HTMLElement} */ (document.getElementById('section-choice')).hidden).toBe(false);
    /** @type {HTMLElement} */ (document.getElementById('choose-rhythm')).click();
    await settle();
    expect(posted).toHaveLength(1);
    expect(posted[0].url).toBe('/api/section/choose');
    expect(posted[0].init.headers.authorization).toBe(`Part ${KEY}`);
    expect(JSON.parse(posted[0].init.body)).toEqual({ part: 'violin', section: 'rhythm', round: 1 });
    form.render({ section: { ...offer, chooser: 'part:violin', chosen: { section: 'rhythm', by: 'part:violin' } } });
    expect(/** @type {HTMLElement} */ (document.getElementById('section-choice')).hidden).toBe(true);
  });

  it('takes a part key from the address, keeps it for that part, and takes it off the address bar', () => {
    /** @type {Map<string, string>} */
    const kept = new Map();
    const storage = {
      getItem: (/** @type {string} */ k) => kept.get(k) ?? null,
      setItem: (/** @type {string} */ k, /** @type {string} */ v) => void kept.set(k, v),
    };
    /** @type {string[]} */
    const replaced = [];
    const win = (/** @type {string} */ hash) => ({
      location: { hash, pathname: '/view/violin', search: '' },
      history: {
        replaceState: (/** @type {unknown} */ _d, /** @type {string} */ _t, /** @type {string} */ u) =>
          void replaced.push(u),
      },
    });
    expect(partKeyOf(win(`#key=${KEY}`), storage, 'violin')).toBe(KEY);
    expect(replaced).toEqual(['/view/violin']);
    expect(partKeyOf(win(''), storage, 'violin')).toBe(KEY);
    expect(partKeyOf(win(''), storage, 'cello')).toBe(null);
    expect(partKeyOf(win('#key=short'), storage, 'cello')).toBe(null);
  });
});
