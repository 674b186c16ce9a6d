// The --osc flag's HOST:PORT. Apart from osc-out.js so that reading the flags never loads node-osc:
// a server started without --osc never needs it.

/**
 * `HOST:PORT` (an IPv6 host in brackets: `[::1]:9000`) as given to --osc.
 * @param {string} text
 * @returns {{ host: string, port: number }}
 */
export function parseOscTarget(text) {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || !(port >= 1 && port <= 65535))
    throw new Error(`--osc must be HOST:PORT of the OSC receiver, e.g. 127.0.0.1:7000 or [::1]:7000, got "${text}"`);
  return { host: m[1] ?? m[2], port };
}
