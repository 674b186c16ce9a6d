// The conductor's calls to the server (doc/protocol.md, "Control"), shared by the console and
// the composer preview. Every call carries the bearer token; answers that are not 2xx become a
// ControlError with the server's code and message, so a page can say what went wrong.

/** A refused or failed control call. */
export class ControlError extends Error {
  /** @param {number} status @param {string} code @param {string} message */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * `fn` with its calls run one after another: each starts once the one before it has its answer
 * (or has failed). Two requests sent at once may go on two connections and reach the server in
 * either order: two seeks in a row could leave the performance at the first.
 * @template {unknown[]} A
 * @template T
 * @param {(...args: A) => Promise<T>} fn
 * @returns {(...args: A) => Promise<T>}
 */
export function oneAtATime(fn) {
  /** @type {Promise<unknown>} */
  let last = Promise.resolve();
  return (...args) => {
    const run = last.then(() => fn(...args));
    last = run.catch(() => {});
    return run;
  };
}

/**
 * @param {object} o
 * @param {string} o.token
 * @param {(url: string, init?: RequestInit) => Promise<Response>} [o.fetch]
 */
export function createControlApi({ token, fetch: doFetch = (url, init) => fetch(url, init) }) {
  /**
   * @param {'GET' | 'POST' | 'PUT'} method
   * @param {string} url
   * @param {object} [body]
   * @returns {Promise<any>}
   */
  async function call(method, url, body) {
    /** @type {Record<string, string>} */
    const headers = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res;
    try {
      res = await doFetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
      });
    } catch {
      throw new ControlError(0, 'SC_ERR_NETWORK', 'The server cannot be reached.');
    }
    const answer = await res.json().catch(() => null);
    if (!res.ok) {
      throw new ControlError(
        res.status,
        answer?.code ?? 'SC_ERR_INTERNAL',
        answer?.message ?? `The server answered ${res.status}.`,
      );
    }
    return answer;
  }

  /** @param {string} action @param {object} [body] */
  const control = (action, body) => call('POST', `/api/control/${action}`, body);

  return {
    /** Check the token (and the address's sign-in budget): resolves with the server status. */
    status: () => call('GET', '/api/status'),
    votes: () => call('GET', '/api/votes'),
    /** The score's presets: `{ presets: [{ id, name, set }] }`. */
    presets: () => call('GET', '/api/presets'),
    /** @param {string} id fire the score's preset `id` now */
    firePreset: (id) => control('preset', { id }),
    /**
     * Choose the open form's next section (the conductor's choice overrides a player's).
     * @param {string} section  a section id, or "end"
     * @param {number} round    the round of the offer (the state's section.round)
     */
    chooseSection: (section, round) => call('POST', '/api/section/choose', { section, round }),
    /**
     * A part's key, the link that opens its view on a tablet with it, and the link's QR code.
     * @param {string} part
     */
    partLink: (part) => call('GET', `/api/part-key/${encodeURIComponent(part)}`),
    /** @param {string[]} tiles force the next page choice to these tiles' pages ([]: back to the votes) */
    forceNext: (tiles) => control('next', { tiles }),
    clients: () => call('GET', '/api/clients'),
    /** The cluster's nodes (404 on a server that is not a cluster node). */
    cluster: () => call('GET', '/api/cluster'),
    /** @param {{ countIn?: number, whenReady?: boolean, timeoutMs?: number }} [o] whenReady: waits for every part */
    play: (o) => control('play', o),
    /** Every device: parts one by one, the audience summed up (server/live/roster.js). */
    roster: () => call('GET', '/api/roster'),
    /**
     * @param {string} device  a device id, or 'all'
     * @param {'resync' | 'reload' | 'attention'} action
     */
    deviceAction: (device, action) =>
      call('POST', `/api/roster/${encodeURIComponent(device)}/${encodeURIComponent(action)}`),
    pause: () => control('pause'),
    stop: () => control('stop'),
    /**
     * Go to a bar and beat, a beat index, or a rehearsal mark. Seeks go one after another
     * (oneAtATime): the last one asked for is where the piece ends up.
     */
    seek: oneAtATime((/** @type {{ bar: number, beat?: number } | { beat: number } | { mark: string }} */ to) =>
      control('seek', to),
    ),
    /**
     * Loop a passage, each end a bar or a rehearsal mark, with a count-in (beats) before each
     * time round; `{off: true}` turns the loop off.
     * @param {{ from: { bar: number } | { mark: string }, to: { bar: number } | { mark: string }, countIn?: number } | { off: true }} body
     */
    loop: (body) => control('loop', body),
    /** @param {{ rate: number } | { bpm: number }} t */
    tempo: (t) => control('tempo', t),
    /** @param {string} id open the score's vote window `id` now */
    openVote: (id) => control('vote', { open: id }),
    /** Close the open vote window now (its winner decides). */
    closeVote: () => control('vote', { close: true }),
    reload: () => call('POST', '/api/reload'),
    /** The scores folder: `{ scores: [{ name, id, title, current }] }`. */
    scores: () => call('GET', '/api/scores'),
    /** @param {string} name a folder name from scores() */
    load: (name) => call('POST', '/api/load', { score: name }),
    /** The image views whose bars the preview can place, and the written bars: `{ bars, views }`. */
    beatMaps: () => call('GET', '/api/score/beatmaps'),
    /**
     * Write the beat map of `view` from its bars' positions (the preview's bar-line mode).
     * @param {string} view
     * @param {import('../../../core/bar-lines.js').BarPosition[]} bars
     */
    saveBeatMap: (view, bars) => call('PUT', `/api/score/beatmaps/${encodeURIComponent(view)}`, { bars }),
    /**
     * Write the score's meter from the time each bar starts in a recording (the preview's tap-along).
     * @param {{ times: number[], end: number | null, recording: string }} taps
     */
    saveTempo: (taps) => call('PUT', '/api/score/tempo', taps),
  };
}

/** @typedef {ReturnType<typeof createControlApi>} ControlApi */

const TOKEN_KEY = 'scorecast-token';

/**
 * The token for this tab: from the URL fragment (`#token=…`, as `scorecast preview` opens it: a
 * fragment is never sent to the server nor logged), else from sessionStorage (kept for reloads
 * of this tab only). The fragment is removed from the address bar once read.
 * @param {Location} location
 * @param {History} history
 * @param {Storage | null} storage
 * @returns {string | null}
 */
export function takeToken(location, history, storage) {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromHash) {
    try {
      storage?.setItem(TOKEN_KEY, fromHash);
    } catch {
      /* this page only */
    }
    history.replaceState(null, '', location.pathname + location.search);
    return fromHash;
  }
  try {
    return storage?.getItem(TOKEN_KEY) ?? null;
  } catch {
    return null;
  }
}

/**
 * @param {Storage | null} storage
 * @param {string | null} token null: forget it (sign out, or refused)
 */
export function keepToken(storage, token) {
  try {
    if (token === null) storage?.removeItem(TOKEN_KEY);
    else storage?.setItem(TOKEN_KEY, token);
  } catch {
    /* this page only */
  }
}
