// The console's part links: for each part, the address that opens its view on a tablet with the
// part's key (a tablet so opened may choose the next section when the open form names its part,
// doc/open-form.md) and its QR code, drawn by the server (GET /api/part-key/:part: an SVG data:
// URL, no CDN, nothing loaded into this page). The address is the one this console reached the
// server by: a console opened on localhost says so, since a tablet cannot follow it.

import { h } from '../console/dom.js';

/**
 * The panel, filled for the score playing and again for each new stream (another score).
 * @param {{ partLink: (part: string) => Promise<any> }} api  control-api.js
 * @param {(listener: (c: { epoch: string | null }) => void) => void} onState  the live connection's states
 * @param {(msg: string, err?: unknown) => void} log
 * @returns {HTMLElement}
 */
export function partLinksPanel(api, onState, log) {
  const box = h('div', { id: 'part-links', 'data-testid': 'part-links' });
  const panel = h(
    'section',
    { class: 'panel', 'aria-label': 'Part links', hidden: '' },
    h('h2', {}, 'Part links'),
    box,
  );
  let epoch = /** @type {string | null} */ (null);
  onState((c) => {
    if (c.epoch === epoch) return;
    epoch = c.epoch;
    fetch('/api/score', { cache: 'no-store' })
      .then((res) => (res.ok ? res.json() : null))
      .then((score) => renderPartLinks(box, partsOf(score), (part) => api.partLink(part)))
      .catch((err) => log('part links unavailable', err));
  });
  return panel;
}

/**
 * The parts of a score (GET /api/score), as the panel names them.
 * @param {any} score
 * @returns {{ id: string, name: string }[]}
 */
export function partsOf(score) {
  if (!Array.isArray(score?.parts)) return [];
  return score.parts
    .filter((/** @type {any} */ p) => typeof p?.id === 'string')
    .map((/** @type {any} */ p) => ({ id: p.id, name: typeof p.name === 'string' ? p.name : p.id }));
}

/** @typedef {{ part: string, link: string, qr: string }} PartLink */

/** A loopback host: a link the tablets cannot reach. */
const LOOPBACK = /^https?:\/\/(localhost|127\.[0-9.]+|\[::1\])(:|\/)/;

/**
 * @param {HTMLElement} box
 * @param {{ id: string, name: string }[]} parts
 * @param {(part: string) => Promise<PartLink>} linkOf  the part's key and link (the conductor's token)
 * @returns {Promise<void>}
 */
export async function renderPartLinks(box, parts, linkOf) {
  const panel = /** @type {HTMLElement | null} */ (box.closest('section'));
  if (panel) panel.hidden = parts.length === 0;
  const links = await Promise.all(parts.map((p) => linkOf(p.id).catch(() => null)));
  const loopback = links.some((l) => l && LOOPBACK.test(l.link));
  box.replaceChildren(
    ...(loopback
      ? [
          h(
            'p',
            { class: 'note', 'data-testid': 'part-links-loopback' },
            'This console is open on this machine’s own address: open it by the venue’s address for links a tablet can follow.',
          ),
        ]
      : []),
    h(
      'div',
      { class: 'part-links' },
      ...parts.map((p, i) => {
        const l = links[i];
        if (!l) return h('p', { 'data-testid': `part-link-${p.id}` }, `${p.name}: no link (sign in again)`);
        const img = h('img', { src: l.qr, alt: `QR code: ${p.name}'s part`, width: '160', height: '160' });
        return h(
          'figure',
          { class: 'part-link', 'data-testid': `part-link-${p.id}`, 'data-part': p.id },
          img,
          h(
            'figcaption',
            {},
            h('strong', {}, p.name),
            ' ',
            h('a', { href: l.link, target: '_blank', rel: 'noopener' }, l.link),
          ),
        );
      }),
    ),
  );
}
