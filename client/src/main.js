// Entry point of the page: wires the connection to the view.

import { Connection } from './connection.js';
import { browserEnv } from './browser-env.js';
import { forcedTransport, viewFromPath } from './route.js';
import { loadScore } from './score-assets.js';
import { createView } from './view.js';

/** @type {import('./transports/index.js').Log} */
const log = (message, detail) => console.info(`[scorecast] ${message}`, detail ?? '');

const viewName = viewFromPath(location.pathname);
const ui = createView(document, viewName);
const connection = new Connection({
  baseUrl: location.origin,
  env: browserEnv(log),
  transport: forcedTransport(location.search),
  view: viewName,
});
connection.on('state', (c) => ui.renderState(c));
connection.on('link', (c) => ui.renderLink(c));

// For browser tests: a read-only view of the connection. `events` lets a test check that no
// change was missed or applied twice.
Object.defineProperty(window, 'scorecast', {
  value: Object.freeze({
    get state() { return connection.state; },
    get epoch() { return connection.epoch; },
    get seq() { return connection.seq; },
    get transport() { return connection.transport; },
    get linkState() { return connection.linkState; },
    get events() { return connection.events; },
    view: viewName,
  }),
});

ui.renderLink(connection);
connection.start();

loadScore((url) => fetch(url), log).then((info) => {
  if (info?.title) ui.setFallbackTitle(info.title);
});
