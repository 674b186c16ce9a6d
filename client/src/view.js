// Renders the connection's state into the page. Plain DOM: the page is a handful of elements.

/** Shown where a value is not known yet. */
const UNKNOWN = '–';

const TRANSPORT_STATES = new Set(['playing', 'paused', 'stopped']);

/**
 * @typedef {object} View
 * @property {(source: { state: any, epoch: string | null, seq: number }) => void} renderState
 * @property {(source: { linkState: string, transport: string }) => void} renderLink
 * @property {(title: string) => void} setFallbackTitle title to show until the state has one
 */

/**
 * Bind to the elements of index.html.
 * @param {Document} doc
 * @param {string} viewName the cue of `state.cues[viewName]` is shown
 * @returns {View}
 */
export function createView(doc, viewName) {
  /** @param {string} id */
  const el = (id) => {
    const found = doc.getElementById(id);
    if (!found) throw new Error(`createView: #${id} is missing from index.html`);
    return found;
  };
  const title = el('title');
  const bar = el('bar');
  const beat = el('beat');
  const transportState = el('transport-state');
  const cue = el('cue');
  const cueText = el('cue-text');
  const link = el('link');
  const via = el('via');
  const seq = el('seq');
  let fallbackTitle = '';
  /** @type {any} */
  let lastState = null;

  el('view-name').textContent = viewName;

  /** @param {any} state */
  const renderTitle = (state) => {
    const text = typeof state?.score?.title === 'string' ? state.score.title : fallbackTitle;
    setText(title, text || 'scorecast');
    doc.title = text ? `${text} · scorecast` : 'scorecast';
  };

  return {
    renderState({ state, epoch, seq: held }) {
      lastState = state;
      renderTitle(state);
      setText(bar, numberText(state?.bar));
      setText(beat, numberText(state?.beatInBar));
      const ts = TRANSPORT_STATES.has(state?.transport) ? state.transport : UNKNOWN;
      setText(transportState, ts);
      transportState.dataset.state = ts;
      const c = state?.cues?.[viewName];
      setText(cueText, typeof c?.text === 'string' ? c.text : '');
      // Colours come from the score; a value the browser does not understand is ignored by it.
      cue.style.color = typeof c?.color === 'string' ? c.color : '';
      cue.style.background = typeof c?.background === 'string' ? c.background : '';
      setText(seq, epoch === null ? UNKNOWN : `${epoch}:${held}`);
    },
    renderLink({ linkState, transport }) {
      setText(link, linkState);
      link.dataset.state = linkState;
      setText(via, transport);
    },
    setFallbackTitle(text) {
      fallbackTitle = text;
      renderTitle(lastState);
    },
  };
}

/**
 * @param {unknown} n
 * @returns {string}
 */
function numberText(n) {
  return typeof n === 'number' && Number.isFinite(n) ? String(n) : UNKNOWN;
}

/**
 * Write only on change: beats arrive several times a second, and unchanged text need not be
 * laid out again (nor re-announced by a screen reader).
 * @param {HTMLElement} node
 * @param {string} text
 */
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}
