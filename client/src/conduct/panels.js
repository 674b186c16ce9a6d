// The console's live panels: vote tallies, and the audience by view and transport with the
// latency the clients measured themselves. Answers come from the network: checked as they are used.

import { h } from '../console/dom.js';

/** @param {unknown} n */
const ms = (n) => (typeof n === 'number' && Number.isFinite(n) ? `${Math.round(n)} ms` : '–');

/**
 * @param {HTMLElement} box
 * @param {any} votes `GET /api/votes`: { open: Outcome | null, closed: Outcome[], windows }
 * @param {{ open: (id: string) => void, close: () => void }} act
 */
export function renderVotes(box, votes, act) {
  // Redrawn only when something changed: a button must not be replaced under a click.
  const key = JSON.stringify(votes);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const open = votes?.open;
  const windows = Array.isArray(votes?.windows) ? votes.windows : [];
  const closed = Array.isArray(votes?.closed) ? votes.closed : [];
  const nodes = [];
  if (open?.tally && typeof open.tally === 'object') {
    const entries = Object.entries(open.tally).map(([tile, n]) => [tile, Number(n) || 0]);
    const total = entries.reduce((a, [, n]) => a + /** @type {number} */ (n), 0);
    nodes.push(
      h(
        'p',
        { class: 'vote-open' },
        `Open: ${String(open.id)}, ${total} vote${total === 1 ? '' : 's'}${open.winner ? `; leading: ${open.winner}` : ''}`,
      ),
    );
    const list = h('ul', { class: 'tally', 'data-vote': String(open.id) });
    for (const [tile, n] of entries) {
      const share = total > 0 ? Math.round((100 * /** @type {number} */ (n)) / total) : 0;
      list.append(
        h(
          'li',
          { 'data-tile': String(tile), 'data-count': String(n) },
          h('span', { class: 'tile-name' }, String(tile)),
          h('span', { class: 'meter', style: `--share: ${share}%`, 'aria-hidden': 'true' }),
          h('span', { class: 'count' }, `${n}`),
        ),
      );
    }
    nodes.push(list);
    const close = h('button', { type: 'button', id: 'vote-close' }, 'Close the vote now');
    close.addEventListener('click', () => act.close());
    nodes.push(h('div', { class: 'row' }, close));
  } else {
    nodes.push(h('p', { class: 'muted' }, 'No vote window is open.'));
  }
  if (windows.length > 0 && !open) {
    const row = h('div', { class: 'row' });
    for (const w of windows) {
      const id = String(w?.id ?? '');
      const b = h('button', { type: 'button', class: 'vote-open', 'data-vote': id }, `Open “${id}” now`);
      b.addEventListener('click', () => act.open(id));
      row.append(b);
    }
    nodes.push(row);
  }
  if (closed.length > 0) {
    const list = h('ul', { class: 'closed' });
    for (const o of closed.slice(-5).reverse()) {
      const tally =
        o?.tally && typeof o.tally === 'object'
          ? Object.entries(o.tally)
              .map(([t, n]) => `${t} ${n}`)
              .join(', ')
          : '';
      list.append(h('li', {}, `${String(o?.id)}: ${o?.winner ? `${o.winner} won` : 'no votes'} (${tally})`));
    }
    nodes.push(h('h3', {}, 'Closed'), list);
  }
  box.replaceChildren(...nodes);
}

/**
 * @param {HTMLElement} box
 * @param {any} a `GET /api/clients`
 */
export function renderAudience(box, a) {
  const count = (/** @type {unknown} */ obj) => (obj && typeof obj === 'object' ? Object.entries(obj) : []);
  const table = (
    /** @type {string} */ caption,
    /** @type {string[]} */ head,
    /** @type {string[][]} */ rows,
    /** @type {string} */ id,
  ) =>
    h(
      'table',
      { id },
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...head.map((x) => h('th', { scope: 'col' }, x)))),
      h(
        'tbody',
        {},
        ...rows.map((r) => h('tr', {}, ...r.map((x, i) => (i === 0 ? h('th', { scope: 'row' }, x) : h('td', {}, x))))),
      ),
    );
  const latency = count(a?.latency).map(([kind, l]) => {
    const x = /** @type {any} */ (l);
    return [
      kind,
      String(x?.push?.n ?? 0),
      ms(x?.push?.p50),
      ms(x?.push?.p95),
      ms(x?.push?.max),
      ms(x?.display?.p95),
      ms(x?.display?.max),
    ];
  });
  box.replaceChildren(
    h('p', { id: 'clients-total', class: 'big-number' }, `${Number(a?.total) || 0} connected`),
    h(
      'div',
      { class: 'tables' },
      table(
        'By view',
        ['view', 'clients'],
        count(a?.byView).map(([v, n]) => [v, String(n)]),
        'by-view',
      ),
      table(
        'By transport',
        ['transport', 'clients'],
        count(a?.byTransport).map(([v, n]) => [v, String(n)]),
        'by-transport',
      ),
    ),
    latency.length > 0
      ? table(
          'As the clients measured it, last minute',
          ['transport', 'samples', 'push p50', 'push p95', 'push max', 'shown late p95', 'shown late max'],
          latency,
          'latency',
        )
      : h('p', { class: 'muted' }, 'No latency reports yet (pages report every 10 s).'),
  );
}

/**
 * The cluster's nodes (README, "Several machines"): which one conducts, the standby, the edges
 * with their clients and how late changes reach them.
 * @param {HTMLElement} box
 * @param {any} answer `GET /api/cluster`
 */
export function renderCluster(box, answer) {
  const nodes = Array.isArray(answer?.nodes) ? answer.nodes : [];
  box.replaceChildren(
    h(
      'table',
      { id: 'cluster-nodes' },
      h(
        'thead',
        {},
        h('tr', {}, ...['node', 'role', 'clients', 'lag', 'host', 'pid'].map((x) => h('th', { scope: 'col' }, x))),
      ),
      h(
        'tbody',
        {},
        ...nodes.map((/** @type {any} */ n) =>
          h(
            'tr',
            { 'data-node': String(n?.id), 'data-active': String(n?.active === true) },
            h('th', { scope: 'row' }, String(n?.id)),
            h('td', {}, `${String(n?.role)}${n?.active ? ' (active)' : ''}`),
            h('td', {}, String(Number(n?.clients) || 0)),
            h('td', {}, ms(n?.lagMs)),
            h('td', {}, String(n?.host ?? '')),
            h('td', {}, String(n?.pid ?? '')),
          ),
        ),
      ),
    ),
  );
}

/**
 * The scores folder, each with a Load button that asks to be pressed again (a load stops the
 * performance that is playing).
 * @param {HTMLElement} box
 * @param {any} answer `GET /api/scores`
 * @param {(name: string, title: string) => void} load
 */
export function renderScores(box, answer, load) {
  const scores = Array.isArray(answer?.scores) ? answer.scores : [];
  const list = h('ul', { class: 'scores' });
  for (const s of scores) {
    const name = String(s?.name ?? '');
    const title = typeof s?.title === 'string' ? s.title : name;
    const item = h(
      'li',
      { 'data-score': name },
      h('span', {}, title),
      s?.current ? h('span', { class: 'muted' }, ' (playing)') : null,
    );
    if (!s?.current) {
      const b = h('button', { type: 'button', class: 'load', 'aria-label': `Load ${title}` }, 'Load');
      b.addEventListener('click', () => {
        if (b.dataset.armed !== 'true') {
          b.dataset.armed = 'true';
          b.textContent = 'Stop and load?';
          setTimeout(() => {
            b.dataset.armed = 'false';
            b.textContent = 'Load';
          }, 4000);
          return;
        }
        load(name, title);
      });
      item.append(' ', b);
    }
    list.append(item);
  }
  box.replaceChildren(scores.length > 0 ? list : h('p', { class: 'muted' }, 'No scores in the scores folder.'));
}
