// Entry point of the page (index.html): starts it on the browser's window, fetch, WebSocket and
// clock (start-page.js; a test starts it on fakes).

import { startPage } from './start-page.js';
import { browserClock } from './page-clock.js';
import '../notation/notation.css';

startPage({
  window,
  document,
  fetch: (url, init) => fetch(url, init),
  WebSocket: typeof WebSocket === 'function' ? WebSocket : undefined,
  clock: browserClock(window),
});
