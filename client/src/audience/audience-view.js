// The audience view's own parts: the grid of tiles the score lights (or the rose, rose.js), votes
// by tapping a tile while a vote window is open, and the join tap (audio unlock, screen wake lock).

import { drawRose, playSpins, roseLayout, viewRadius } from './rose.js';
import { createRoseMotion, spinOf, stageOf, zoomOf, zoomStartOf } from './rose-motion.js';
import { drawPicture, drawPlaying, playingOf, showSelectedOf } from './rose-overlays.js';
import { speechOf } from '../sound/speech.js';

/** Tile states a score may use (doc/score-format.md); anything else shows as dark. */
const TILE_STATES = new Set(['dark', 'dim', 'lit', 'playing', 'next', 'played']);
const DEVICE_KEY = 'scorecast-device';
/** A device credential as the server issues it (doc/protocol.md, "Device credentials"). */
const CREDENTIAL_RE = /^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/;

/**
 * @typedef {{ getItem(k: string): string | null, setItem(k: string, v: string): void, removeItem?(k: string): void }} StorageLike
 * @typedef {(url: string, init?: { method?: string, headers?: Record<string, string>, body?: string }) => Promise<{ ok: boolean, status: number, json(): Promise<any> }>} FetchLike
 * @typedef {{ ok: true, tile: string | null } | { ok: false, code?: string }} VoteAnswer
 *   tile: this phone's vote after the tap (null: the tap took it back)
 */

/**
 * Votes for this browser. Its device is a credential the server issued and signed (one vote per
 * device per window; an id cannot be invented), kept in localStorage so that a reload is the same
 * device. Without storage (private mode), a credential for this page's life. Every vote goes over
 * HTTP whatever the live transport: one path, the answer in the response.
 * @param {{ fetch: FetchLike, storage: StorageLike | null, log?: import('../live/transports/index.js').Log }} options
 */
export function createVoter({ fetch, storage, log = () => {} }) {
  /** @type {string | null} */
  let credential = null;
  try {
    const kept = storage?.getItem(DEVICE_KEY);
    if (kept && CREDENTIAL_RE.test(kept)) credential = kept;
  } catch {
    /* storage refused: ask the server */
  }
  /** @type {Promise<{ device: string } | { code: string }> | null} */
  let asking = null;

  /** This browser's credential, from storage or the server (one request at a time). */
  function obtain() {
    if (credential) return Promise.resolve({ device: credential });
    asking ??= fetch('/api/device', { method: 'POST' })
      .then(async (res) => {
        const body = await res.json().catch(() => ({}));
        if (!res.ok || typeof body?.device !== 'string' || !CREDENTIAL_RE.test(body.device))
          return { code: String(body?.code ?? 'SC_ERR_BAD_DEVICE') };
        credential = body.device;
        try {
          storage?.setItem(DEVICE_KEY, body.device);
        } catch {
          /* kept for this page only */
        }
        return { device: body.device };
      })
      .catch((err) => {
        log('no device credential', err);
        return { code: 'SC_ERR_BAD_DEVICE' };
      })
      .finally(() => {
        asking = null;
      });
    return asking;
  }

  /** @param {string} tile @param {string} window @param {string} device @returns {Promise<VoteAnswer>} */
  async function send(tile, window, device) {
    const res = await fetch('/api/tap', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tile, window, device }),
    });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) return { ok: false, code: body?.code };
    // The server says what this phone's vote is now: a tap on its own tile takes it back.
    return {
      ok: true,
      tile: body && 'tile' in body && (body.tile === null || typeof body.tile === 'string') ? body.tile : tile,
    };
  }

  return {
    /** The credential this browser votes with, once it has one. */
    get device() {
      return credential;
    },
    /** Get a credential now (at page load), so that the first vote needs one request only. */
    prepare: () => obtain().then(() => {}),
    /**
     * Cast a vote. A credential the server no longer knows (it was restarted with another
     * conductor token) is replaced once, and the vote sent again.
     * @param {string} tile @param {string} window
     * @returns {Promise<VoteAnswer>}
     */
    async vote(tile, window) {
      try {
        for (let attempt = 0; attempt < 2; attempt++) {
          const got = await obtain();
          if (!('device' in got)) return { ok: false, code: got.code };
          const answer = await send(tile, window, got.device);
          if (answer.ok || answer.code !== 'SC_ERR_BAD_DEVICE') return answer;
          credential = null;
          try {
            storage?.removeItem?.(DEVICE_KEY);
          } catch {
            /* nothing kept */
          }
        }
        return { ok: false, code: 'SC_ERR_BAD_DEVICE' };
      } catch (err) {
        log('vote failed', err);
        return { ok: false };
      }
    },
  };
}

/**
 * @typedef {{ id: string, state: string, text: string }} Tile
 * @typedef {{ id: string, tiles: string[] }} VoteWindow
 */

/**
 * The tiles and open vote window of an audience cue state, checked (it comes from the network).
 * @param {any} cue
 * @returns {{ tiles: Tile[], vote: VoteWindow | null }}
 */
export function tilesOf(cue) {
  /** @type {Tile[]} */
  const tiles = [];
  // A list, or tiles keyed by id (one tile's change is one small patch): { t1-1: { state, text } }.
  const given = Array.isArray(cue?.tiles)
    ? cue.tiles
    : cue?.tiles && typeof cue.tiles === 'object'
      ? Object.entries(cue.tiles)
          .filter(([, t]) => t && typeof t === 'object')
          .map(([id, t]) => ({ ...t, id }))
      : null;
  if (given) {
    for (const t of given) {
      if (!t || (typeof t.id !== 'string' && typeof t.id !== 'number')) continue;
      // A tile a preset took off the rose keeps its words until it is shown again.
      if (t.state === 'hidden') continue;
      tiles.push({
        id: String(t.id),
        state: TILE_STATES.has(t.state) ? t.state : 'dark',
        text: typeof t.text === 'string' ? t.text : '',
      });
    }
  }
  const v = cue?.vote;
  const vote =
    v && typeof v.id === 'string' && Array.isArray(v.tiles)
      ? { id: v.id, tiles: /** @type {string[]} */ (v.tiles.map(String)) }
      : null;
  // A window the conductor opened at another moment of the piece: the tiles on show are not
  // the ones to vote for, so the vote's own tiles are shown instead.
  if (vote && !vote.tiles.some((id) => tiles.some((t) => t.id === id))) {
    return { tiles: vote.tiles.map((id) => ({ id, state: 'lit', text: id })), vote };
  }
  return { tiles, vote };
}

/**
 * Votes per tile in the open window, as the conductor publishes them (`vote.counts`), checked.
 * @param {any} cue
 * @returns {Record<string, number>}
 */
export function voteCounts(cue) {
  const c = cue?.vote?.counts;
  /** @type {Record<string, number>} */
  const out = {};
  if (!c || typeof c !== 'object') return out;
  for (const [id, n] of Object.entries(c)) if (Number.isInteger(n) && n > 0) out[id] = n;
  return out;
}

/**
 * What a vote answer means for the person who tapped.
 * @param {{ ok: boolean, tile?: string | null, code?: string }} answer
 */
export function voteMessage(answer) {
  if (answer.ok && answer.tile === null) return 'Your vote is taken back. Tap a tile to vote.';
  if (answer.ok) return `Your vote: ${answer.tile}. Counted.`;
  switch (answer.code) {
    case 'SC_ERR_ALREADY_VOTED':
      return 'You have already voted in this round.';
    case 'SC_ERR_NO_VOTE_WINDOW':
      return 'Voting has closed.';
    case 'SC_ERR_RATE_LIMITED':
      return 'Too many taps: wait a moment.';
    case 'SC_ERR_ADDRESS_LIMIT':
      return 'Too many votes from this network: yours was not counted.';
    default:
      return 'Your vote did not reach the server. Tap again.';
  }
}

/**
 * Bind the audience parts of index.html.
 * @param {Document} doc
 * @param {{ onVote: (tile: string, window: string) => void, onSpeak?: (word: string, speech: import('../sound/speech.js').Speech) => void }} handlers
 */
export function createAudienceView(doc, { onVote, onSpeak }) {
  const grid = /** @type {HTMLElement} */ (doc.getElementById('tiles'));
  const status = /** @type {HTMLElement} */ (doc.getElementById('vote-status'));
  let lastKey = '';
  /** @type {any} the cue last drawn, drawn again when the vote's answer comes */
  let lastCue = null;
  /** The window this page voted in, and for which tile: shown until the window closes. */
  let voted = { window: '', tile: '' };
  /** The tile this page chose in each window, in order: the rose links them with a line. */
  /** @type {Map<string, string>} */
  const chosen = new Map();
  /** @type {string[]} */
  let selected = [];
  /** @type {{ landed: boolean, since: (beat: number) => number | null } | null} the last beat's timing */
  let lastWhere = null;
  const view = doc.defaultView;
  const motion = createRoseMotion({
    now: () => view?.performance?.now() ?? Date.now(),
    reduced: () => view?.matchMedia?.('(prefers-reduced-motion: reduce)').matches === true,
  });

  /** @param {Event} event */
  const tap = (event) => {
    const target = /** @type {HTMLElement} */ (event.target);
    // While the piece speaks, every tap on a lit tile says its word (as often as one likes).
    const speaking = /** @type {HTMLElement | null} */ (target.closest('[data-speak]'));
    const speech = speechOf(lastCue);
    if (speaking && speech?.enabled) onSpeak?.(/** @type {string} */ (speaking.dataset.speak), speech);
    const button = /** @type {HTMLElement | null} */ (target.closest('[data-vote]'));
    // A tile of the rose that cannot be chosen swings its ring, as on ZScore's page.
    const tile = /** @type {HTMLElement | null} */ (target.closest('g.tile'));
    const rose = roseLayout(lastCue?.layout);
    if (tile && rose && !button && !speaking) {
      const ring = Number(/^t(\d+)-/.exec(tile.dataset.tile ?? '')?.[1]);
      const svg = grid.querySelector('svg.rose');
      if (ring >= 1 && svg)
        playSpins(
          svg,
          motion.poke(ring).spins.filter((m) => m.ring === ring),
          rose.slices,
        );
    }
    if (!button) return;
    onVote(/** @type {string} */ (button.dataset.tile), /** @type {string} */ (button.dataset.vote));
  };
  grid.addEventListener('click', tap);
  // The rose's tiles are SVG groups with role=button: Enter and Space vote as on a button.
  grid.addEventListener('keydown', (event) => {
    if ((event.key === 'Enter' || event.key === ' ') && /** @type {Element} */ (event.target).tagName === 'g') {
      event.preventDefault();
      tap(event);
    }
  });

  return {
    /**
     * @param {any} cue the audience cue state
     * @param {{ landed: boolean, since: (beat: number) => number | null }} [where]  whether the
     *   page landed on this beat (rose-motion.js `landed`) and the time since a beat sounded: the
     *   rose is then shown as it is at this beat, not animated from the picture before
     */
    render(cue, where) {
      lastCue = cue;
      const { tiles, vote } = tilesOf(cue);
      if (!vote && voted.window) {
        voted = { window: '', tile: '' };
        status.textContent = '';
      }
      if (vote && !voted.window && status.textContent === '') status.textContent = 'Tap a tile to vote.';
      const rose = roseLayout(cue?.layout);
      const speaks = speechOf(cue)?.enabled === true;
      const counts = voteCounts(cue);
      const turn =
        typeof cue?.layout?.turn === 'number' && Number.isFinite(cue.layout.turn) ? cue.layout.turn % 360 : 0;
      const zoom = rose ? zoomOf(cue?.layout, rose.rings) : null;
      const stage = stageOf(cue);
      const spin = rose ? spinOf(cue, rose.rings) : null;
      const playing = rose ? playingOf(cue) : null;
      const picture = rose ? showSelectedOf(cue) : null;
      if (where) lastWhere = where;
      const key = JSON.stringify([
        tiles,
        vote,
        voted,
        rose,
        speaks,
        counts,
        selected,
        turn,
        zoom,
        stage,
        spin,
        playing,
        picture,
      ]);
      if (key === lastKey && !where?.landed) return;
      lastKey = key;
      grid.dataset.count = String(tiles.length);
      // The closing picture shows the phone's choices even when no tile is left on the rose.
      grid.hidden = tiles.length === 0 && !picture;
      if (rose) {
        grid.dataset.layout = 'rose';
        const radius = viewRadius(rose, tiles, zoom);
        const since = (/** @type {number | null} */ beat) => (beat === null || !where ? null : where.since(beat));
        const zoomStart = zoomStartOf(cue?.layout, rose.rings);
        const landing = where?.landed
          ? {
              zoomFrom: zoomStart.from === null ? null : viewRadius(rose, tiles, zoomStart.from),
              zoomSince: since(zoomStart.at),
              alphaFrom: stage?.from ?? null,
              stageSince: since(stage?.at ?? null),
              spinSince: spin && Number.isInteger(cue?.spin?.at) ? since(cue.spin.at) : null,
            }
          : null;
        const moves = motion.update({ radius, alpha: stage?.alpha ?? null, glide: stage?.glide ?? 0, spin }, landing);
        drawRose(grid, rose, tiles, vote, voted, speaks, {
          counts,
          // The closing picture draws the phone's selection its own way.
          selected: picture ? [] : selected,
          turn,
          radius,
          stage: stage?.alpha ?? null,
          moves,
        });
        const svg = /** @type {SVGElement | null} */ (grid.querySelector('svg.rose'));
        const ago = (/** @type {number | null} */ beat) => (beat === null || !lastWhere ? null : lastWhere.since(beat));
        const still = motion.reduced();
        if (svg && playing) drawPlaying(svg, playing, ago(playing.at), rose, still);
        if (svg && picture) drawPicture(svg, selected, picture, ago(picture.at), rose, still);
        return;
      }
      delete grid.dataset.layout;
      const nodes = tiles.map((t) => {
        const votable = vote?.tiles.includes(t.id);
        const speaking = speaks && t.state === 'lit' && t.text !== '';
        const node = doc.createElement(votable || speaking ? 'button' : 'div');
        node.className = 'tile';
        node.dataset.tile = t.id;
        node.dataset.state = t.state;
        node.textContent = t.text;
        if (speaking) node.dataset.speak = t.text;
        if (counts[t.id]) node.dataset.votes = String(counts[t.id]);
        if (votable && vote) {
          node.setAttribute('type', 'button');
          node.dataset.vote = vote.id;
          const mine = voted.window === vote.id && voted.tile === t.id;
          node.setAttribute('aria-pressed', String(mine));
          node.setAttribute('aria-label', `Vote ${t.text || t.id}`);
        } else if (speaking) {
          node.setAttribute('type', 'button');
          node.setAttribute('aria-label', `Say ${t.text}`);
        } else {
          node.setAttribute('aria-hidden', 'true');
        }
        return node;
      });
      grid.replaceChildren(...nodes);
    },
    /**
     * The server's answer to this page's vote.
     * @param {string} window @param {{ ok: boolean, tile?: string | null, code?: string }} answer
     */
    voteAnswer(window, answer) {
      // A tap selects a tile, moves the vote to another, or (on the tile voted for) unselects it.
      if (answer.ok && answer.tile === null) voted = { window: '', tile: '' };
      else if (answer.ok || answer.code === 'SC_ERR_ALREADY_VOTED') voted = { window, tile: answer.tile ?? '' };
      if (answer.ok) {
        chosen.delete(window);
        if (answer.tile) chosen.set(window, answer.tile);
        while (chosen.size > 64) chosen.delete(/** @type {string} */ (chosen.keys().next().value));
        selected = [...chosen.values()];
      }
      status.textContent = voteMessage(answer);
      lastKey = '';
      // Show the tile as voted now, not at the next change of state (a paused piece has none).
      this.render(lastCue);
    },
  };
}
