// The roster panel: every part (ready or not, or with no device), every part device with what it
// reports and its actions (resync, reload, attention), the audience summed up with its ten worst
// phones, actions for all, and "play when ready" with its countdown. Rows are keyed by device id
// and updated in place, so a button is never replaced under a click. Answers come from the
// network (GET /api/roster): checked as they are used.

import { h, setText } from '../console/dom.js';

/** @param {unknown} n */
const ms = (n) => (typeof n === 'number' && Number.isFinite(n) ? `${Math.round(n)} ms` : '–');
/** @param {unknown} b */
const yes = (b) => (b === true ? 'yes' : b === false ? 'no' : '–');
/** @param {unknown} v */
const str = (v) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '–');
/** @param {unknown} n */
const ago = (n) => (typeof n === 'number' && Number.isFinite(n) ? `${(n / 1000).toFixed(1)} s ago` : '–');

const COLUMNS = [
  ['name', 'Name'],
  ['view', 'View'],
  ['transport', 'Transport'],
  ['link', 'Link'],
  ['playback', 'Playback'],
  ['clockError', 'Clock error'],
  ['rtt', 'Round trip'],
  ['behind', 'Behind (seqs)'],
  ['audio', 'Audio'],
  ['outputMs', 'Sound out'],
  ['awake', 'Awake'],
  ['assets', 'Assets'],
  ['app', 'App'],
  ['lastSeenMs', 'Last seen'],
];
const ACTIONS = /** @type {const} */ ([
  ['resync', 'Resync'],
  ['reload', 'Reload'],
  ['attention', 'Attention'],
]);

/**
 * What a device's row shows in column `key`.
 * @param {string} key @param {any} d  a device as GET /api/roster answers it
 */
export function cell(key, d) {
  const v = d?.[key];
  switch (key) {
    case 'name':
      return typeof v === 'string' && v !== '' ? v : str(d?.id);
    case 'clockError':
    case 'rtt':
      return ms(v);
    case 'audio':
      return v === true ? 'unlocked' : v === false ? 'locked' : '–';
    case 'outputMs':
      // The player sees the same flag beside the click toggle (audio-latency.js, slowOutputNotice).
      return d?.slowOutput === true ? `${ms(v)} (Bluetooth?)` : ms(v);
    case 'assets':
      return yes(v);
    case 'lastSeenMs':
      return ago(v);
    case 'transport':
      // On a cluster: the node the device is connected to.
      return typeof d?.node === 'string' ? `${str(v)} on ${d.node}` : str(v);
    default:
      return str(v);
  }
}

/**
 * A table of devices whose rows persist by id.
 * @param {string} id
 * @param {(device: string, action: string) => void} onAction
 */
function deviceTable(id, onAction) {
  const body = h('tbody');
  const table = h(
    'table',
    { id, class: 'roster' },
    h('thead', {}, h('tr', {}, ...COLUMNS.map(([, label]) => h('th', {}, label)), h('th', {}, 'Actions'))),
    body,
  );
  table.addEventListener('click', (e) => {
    const b = /** @type {HTMLElement} */ (e.target).closest?.('button[data-action]');
    if (b instanceof HTMLElement && b.dataset.device && b.dataset.action) onAction(b.dataset.device, b.dataset.action);
  });
  /** @param {any[]} rows */
  function show(rows) {
    /** @type {Map<string, HTMLElement>} */
    const have = new Map();
    for (const tr of /** @type {HTMLElement[]} */ ([...body.children])) have.set(tr.dataset.device ?? '', tr);
    let i = 0;
    for (const d of rows) {
      const key = str(d?.id);
      let tr = have.get(key);
      have.delete(key);
      if (!tr) {
        tr = h(
          'tr',
          { 'data-device': key },
          ...COLUMNS.map(([col]) => h('td', { 'data-col': col })),
          h(
            'td',
            { class: 'row' },
            ...ACTIONS.map(([action, label]) =>
              h('button', { type: 'button', 'data-device': key, 'data-action': action }, label),
            ),
          ),
        );
      }
      if (body.children[i] !== tr) body.insertBefore(tr, body.children[i] ?? null);
      const row = tr;
      COLUMNS.forEach(([col], c) => {
        setText(/** @type {HTMLElement} */ (row.children[c]), cell(col, d));
      });
      tr.dataset.link = str(d?.link);
      tr.dataset.view = str(d?.view);
      tr.dataset.slowOutput = String(d?.slowOutput === true);
      i++;
    }
    for (const tr of have.values()) tr.remove();
  }
  return { table, show };
}

/**
 * @typedef {object} RosterActions
 * @property {(device: string, action: string) => void} device  one device, or 'all'
 * @property {(timeoutMs: number) => void} playWhenReady
 * @property {() => void} cancelWait
 */

/**
 * Build the panel once; `show` updates it from each answer of GET /api/roster.
 * @param {RosterActions} act
 */
export function createRosterPanel(act) {
  const summary = h('p', { id: 'roster-summary' });
  const waiting = h('p', { id: 'roster-waiting', role: 'status' });
  const parts = h('ul', { id: 'roster-parts', class: 'roster-parts' });
  const timeout = /** @type {HTMLInputElement} */ (
    h('input', {
      id: 'ready-timeout',
      type: 'number',
      min: '1',
      max: '120',
      step: '1',
      value: '30',
      inputmode: 'numeric',
      'aria-label': 'Wait at most (s)',
    })
  );
  const playReady = h('button', { type: 'button', id: 'play-when-ready' }, 'Play when ready');
  playReady.addEventListener('click', () => act.playWhenReady(Math.round(Number(timeout.value) * 1000)));
  const cancel = h('button', { type: 'button', id: 'cancel-wait', hidden: '' }, 'Cancel the wait');
  cancel.addEventListener('click', () => act.cancelWait());
  // Reloading every page takes a second click (a mistaken one reloads the audience too).
  const allButtons = h(
    'div',
    { class: 'row', id: 'roster-all' },
    ...ACTIONS.map(([action, label]) => {
      const b = h('button', { type: 'button', 'data-all': action }, `${label} all`);
      let armed = 0;
      b.addEventListener('click', () => {
        if (action === 'reload' && Date.now() - armed > 3000) {
          armed = Date.now();
          setText(b, 'Reload every device? Click again');
          return;
        }
        armed = 0;
        setText(b, `${label} all`);
        act.device('all', action);
      });
      return b;
    }),
  );
  const devices = deviceTable('roster-devices', act.device);
  const worst = deviceTable('roster-worst', act.device);
  const audience = h('p', { id: 'roster-audience' });
  const box = h(
    'div',
    { id: 'roster' },
    summary,
    h('div', { class: 'row' }, playReady, h('label', {}, 'wait at most ', timeout, ' s'), cancel),
    waiting,
    parts,
    allButtons,
    h('h3', {}, 'Part devices'),
    devices.table,
    h('h3', {}, 'Audience'),
    audience,
    h('h4', {}, 'Ten worst phones'),
    worst.table,
  );

  /** @param {any} r  the answer of GET /api/roster */
  function show(r) {
    const ps = Array.isArray(r?.parts) ? r.parts : [];
    const ready = ps.filter((/** @type {any} */ p) => p?.ready === true).length;
    const nodes = Array.isArray(r?.nodes) ? `; ${r.nodes.length} nodes` : '';
    const partial = r?.partial === true ? " (Redis did not answer: this node's devices only)" : '';
    setText(summary, `Parts ready: ${ready} of ${ps.length}${nodes}${partial}`);
    // Parts, in place by id.
    /** @type {Map<string, HTMLElement>} */
    const have = new Map();
    for (const li of /** @type {HTMLElement[]} */ ([...parts.children])) have.set(li.dataset.part ?? '', li);
    for (const p of ps) {
      const key = str(p?.part);
      let li = have.get(key);
      have.delete(key);
      if (!li) parts.append((li = h('li', { 'data-part': key })));
      li.dataset.ready = String(p?.ready === true);
      li.dataset.missing = String(p?.missing === true);
      const why = Array.isArray(p?.why) ? p.why.map(String).join(', ') : '';
      setText(li, `${key}: ${p?.missing ? 'NO DEVICE' : p?.ready ? 'ready' : `not ready (${why})`}`);
    }
    for (const li of have.values()) li.remove();
    devices.show(Array.isArray(r?.devices) ? r.devices : []);
    const a = r?.audience ?? {};
    setText(
      audience,
      `${str(a.total)} phones (${str(a.live)} live, ${str(a.silent)} silent); clock error p50 ${ms(a.clockError?.p50)}, p95 ${ms(a.clockError?.p95)}, max ${ms(a.clockError?.max)}; behind p50 ${str(a.behind?.p50)}, p95 ${str(a.behind?.p95)}, max ${str(a.behind?.max)} seqs; round trip p50 ${ms(a.rtt?.p50)}`,
    );
    worst.show(Array.isArray(a.worst) ? a.worst : []);
    const w = r?.waiting;
    if (w && typeof w.until === 'number' && typeof r?.t === 'number') {
      const left = Math.max(0, Math.ceil((w.until - r.t) / 1000));
      setText(waiting, `Play when ready: waiting for every part, ${left} s left`);
      waiting.dataset.waiting = 'true';
      cancel.hidden = false;
    } else {
      setText(waiting, '');
      waiting.dataset.waiting = 'false';
      cancel.hidden = true;
    }
  }
  return { box, show };
}
