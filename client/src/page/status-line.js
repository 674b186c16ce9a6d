// The page's status line in words for the people holding the phone ("live", "reconnecting…"); the
// transport and the held position (`epoch:seq`) are diagnostics, shown only with the debug flag
// (`?debug` in the address, or localStorage `scorecast-debug` set to 1) and written to the
// console on every change of the link.

/** @type {Record<import('../live/connection.js').LinkState, string>} */
const WORDS = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'reconnecting…',
  offline: 'offline: waiting for the network',
};

/**
 * What the status line says for a link state.
 * @param {string} linkState
 */
export function statusWords(linkState) {
  return Object.hasOwn(WORDS, linkState) ? WORDS[/** @type {keyof typeof WORDS} */ (linkState)] : linkState;
}

/**
 * Whether the page shows its diagnostics.
 * @param {string} search  location.search
 * @param {{ getItem: (key: string) => string | null } | null} storage  localStorage, or null where refused
 */
export function debugWanted(search, storage) {
  const flag = new URLSearchParams(search).get('debug');
  if (flag !== null) return flag !== '0' && flag !== 'false';
  try {
    return storage?.getItem('scorecast-debug') === '1';
  } catch {
    return false;
  }
}

/**
 * The console line for a change of the link: every diagnostic the status line no longer shows.
 * @param {{ linkState: string, transport: string | null, epoch: string | null, seq: number }} c
 */
export function linkDiagnostics({ linkState, transport, epoch, seq }) {
  return `link ${linkState} via ${transport ?? '–'}, held ${epoch === null ? '–' : `${epoch}:${seq}`}`;
}
