// What an open-form piece adds to the audience page and the part pages (doc/open-form.md): the
// audience meter (the state's `meter`, -1..1) drawn as a bar on every page while the section shows
// it; thumbs up and down on the phones while the section shows them (sent as a `thumb` message on
// a WebSocket, or POST /api/thumb, with the phone's device credential); and on a part's page, the
// buttons that choose the next section when the offer says this part may choose, sent with the
// part's key (the console's link `/view/<part>#key=<key>`, kept in localStorage for that part).
// The phones also get note-up and note-down buttons while the section's `notes` switch is on (they
// sound on the phone itself, through phone-sound.js, at most four a second), and their user number;
// a part's page draws the section's overlays (bands the score or the meter values) over the part.

import { sectionOf } from '../console/section-words.js';
import { createPartOverlays } from '../notation/part-overlays.js';

const KEY_PREFIX = 'scorecast-part-key:';
const KEY_RE = /^[A-Za-z0-9_-]{22}$/;
/** A phone's thumbs, at most this often (the server takes 2 a second from a device). */
const THUMB_GAP_MS = 500;
/** A phone's notes, at most this often: a note is sounded on the phone only, but a stuck or
 * scripted button must not make a drone of it. */
export const NOTE_GAP_MS = 250;

/**
 * The number a phone shows its holder (ZScore's user number): from the device credential's id,
 * 100-999, the same on every reload of this browser. Not unique across a big room (it names a
 * phone for a person, it is not an identity: the credential is).
 * @param {string} credential
 * @returns {number | null}
 */
export function userNumberOf(credential) {
  const m = /^([A-Za-z0-9_-]{22})\./.exec(credential);
  if (!m) return null;
  const digits = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let n = 0;
  for (const ch of m[1].slice(0, 5)) n = n * 64 + digits.indexOf(ch);
  return 100 + (n % 900);
}

/**
 * @typedef {import('../audience/audience-view.js').StorageLike} StorageLike
 * @typedef {import('../audience/audience-view.js').FetchLike} FetchLike
 */

/**
 * The part key this page holds for `part`: from the address's `#key=` (then kept, and taken off
 * the address bar), or as kept before.
 * @param {{ location: { hash: string, pathname: string, search: string }, history?: { replaceState(d: unknown, t: string, u: string): void } }} window
 * @param {StorageLike | null} storage
 * @param {string} part
 */
export function partKeyOf(window, storage, part) {
  const m = /(?:^#|&)key=([A-Za-z0-9_-]{22})(?:&|$)/.exec(window.location.hash);
  if (m) {
    try {
      storage?.setItem(KEY_PREFIX + part, m[1]);
    } catch {
      /* kept for this page only */
    }
    window.history?.replaceState(null, '', window.location.pathname + window.location.search);
    return m[1];
  }
  try {
    const kept = storage?.getItem(KEY_PREFIX + part);
    return kept && KEY_RE.test(kept) ? kept : null;
  } catch {
    return null;
  }
}

/**
 * @param {Document} document
 * @param {{
 *   view: string,
 *   audience: boolean,
 *   fetch: FetchLike,
 *   send: (message: import('../../../core/protocol.js').ClientMessage) => boolean,
 *   device: () => Promise<string | null>,
 *   partKey: string | null,
 *   now: () => number,
 *   onNote?: (direction: 'up' | 'down') => unknown,
 *   log?: (msg: string, err?: unknown) => void,
 * }} o  audience: the audience page (thumbs), else a part's or the score's (the choice);
 *   send: a message on the live connection (false: not a WebSocket); device: the phone's
 *   credential; onNote: a note button pressed (and let through)
 */
export function createOpenFormPage(
  document,
  { view, audience, fetch, send, device, partKey, now, onNote = () => {}, log = () => {} },
) {
  const byId = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
  const meter = byId('meter');
  const fill = byId('meter-fill');
  const thumbs = byId('thumbs');
  const choice = byId('section-choice');
  const options = byId('section-options');
  const choiceStatus = byId('section-choice-status');
  // A part's page draws the section's overlays (not the audience's, nor the full score's).
  const overlays = audience || view === 'score' ? null : createPartOverlays(byId('part-overlays'), view);
  const notes = byId('notes');
  const userNumber = byId('user-number');
  let lastThumb = Number.NEGATIVE_INFINITY;
  let lastNote = Number.NEGATIVE_INFINITY;
  let notesOn = false;
  /** Whether the user number was asked for (once: the credential does not change). */
  let numbered = false;
  /** The offer drawn last: its round and options, so that buttons are made once per offer. */
  let drawnOffer = '';
  /** @type {any} */
  let section = null;

  /** @param {'up' | 'down'} value */
  async function thumb(value) {
    const t = now();
    if (t - lastThumb < THUMB_GAP_MS) return;
    lastThumb = t;
    const credential = await device();
    if (!credential) return;
    if (send({ type: 'thumb', value, device: credential })) return;
    try {
      await fetch('/api/thumb', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ value, device: credential }),
      });
    } catch (err) {
      log('thumb not sent', err);
    }
  }
  byId('thumb-up').addEventListener('click', () => thumb('up'));
  byId('thumb-down').addEventListener('click', () => thumb('down'));

  /** @param {'up' | 'down'} direction */
  function note(direction) {
    const t = now();
    if (!notesOn || t - lastNote < NOTE_GAP_MS) return;
    lastNote = t;
    onNote(direction);
  }
  byId('note-up').addEventListener('click', () => note('up'));
  byId('note-down').addEventListener('click', () => note('down'));

  function showUserNumber() {
    if (numbered) return;
    numbered = true;
    device()
      .then((credential) => {
        const n = credential ? userNumberOf(credential) : null;
        if (n === null) return;
        userNumber.textContent = `You are no. ${n}`;
        userNumber.dataset.number = String(n);
        userNumber.hidden = false;
      })
      .catch((err) => log('no user number', err));
  }

  /** @param {string} id */
  async function choose(id) {
    const s = section;
    if (!s || !partKey) return;
    const claim = s.chooser === 'first' && s.claimedBy !== view;
    try {
      if (claim) await post('/api/section/claim', { part: view, round: s.round });
      const answer = await post('/api/section/choose', { part: view, section: id, round: s.round });
      choiceStatus.textContent = answer.ok ? '' : (answer.message ?? 'not taken');
    } catch (err) {
      log('choice not sent', err);
      choiceStatus.textContent = 'not sent: no connection';
    }
  }

  /** @param {string} url @param {unknown} body */
  async function post(url, body) {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Part ${partKey}` },
      body: JSON.stringify(body),
    });
    const json = await res.json().catch(() => ({}));
    return { ok: res.ok, message: typeof json?.message === 'string' ? json.message : undefined };
  }

  /** @param {HTMLElement} el @param {boolean} hidden */
  const hide = (el, hidden) => {
    if (el.hidden !== hidden) el.hidden = hidden;
  };

  return {
    /**
     * Draw the open form's parts of the state.
     * @param {any} state
     */
    render(state) {
      section = sectionOf(state?.section);
      const shows = section?.audience ?? null;
      const value = typeof state?.meter === 'number' ? Math.max(-1, Math.min(1, state.meter)) : null;
      // The musicians see the meter whenever the state has it; the phones when the section says.
      const meterShown = value !== null && (!audience || shows?.meter === true);
      hide(meter, !meterShown);
      if (meterShown) {
        meter.setAttribute('aria-valuenow', String(value));
        meter.dataset.value = String(value);
        fill.style.width = `${Math.abs(value) * 50}%`;
        fill.style.left = value >= 0 ? '50%' : `${50 - Math.abs(value) * 50}%`;
        fill.dataset.sign = value >= 0 ? 'up' : 'down';
      }
      hide(thumbs, !(audience && shows?.thumbs === true));
      overlays?.render(state);
      notesOn = audience && shows?.notes === true;
      hide(notes, !notesOn);
      if (audience && section) showUserNumber();
      const mine =
        !audience &&
        partKey !== null &&
        section !== null &&
        !section.chosen &&
        (section.chooser === `part:${view}` ||
          (section.chooser === 'first' && (!section.claimedBy || section.claimedBy === view)));
      hide(choice, !mine);
      if (!mine || !section) return;
      const key = `${section.round}:${section.options.map((/** @type {{ id: string }} */ o) => o.id).join(',')}`;
      if (key === drawnOffer) return;
      drawnOffer = key;
      options.replaceChildren(
        ...section.options.map((/** @type {{ id: string, name: string }} */ o) => {
          const b = document.createElement('button');
          b.type = 'button';
          b.id = `choose-${o.id}`;
          b.dataset.testid = `choose-${o.id}`;
          b.textContent = o.name;
          b.addEventListener('click', () => choose(o.id));
          return b;
        }),
      );
      choiceStatus.textContent = '';
    },
    /** Whether the audience page's switches let a tap vote / the phone play the score's sound. */
    allows(/** @type {'vote' | 'audio'} */ what, /** @type {any} */ state) {
      const shows = sectionOf(state?.section)?.audience;
      return shows ? shows[what] !== false : true;
    },
  };
}
