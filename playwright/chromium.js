// Debian's Chromium, kept quiet and off the network: the browser tests, the benchmarks, the venue
// lab's pages and the venue-address test all launch it with these flags.

/** Where Debian installs it (`apt-get install -y chromium`): Playwright cannot download browsers here. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * No sandbox, GPU, QUIC, first-run, background fetches, component updates or sync; no name resolves
 * but the ones `map` gives, and `exclude` resolves as itself.
 * @param {{ exclude?: string, map?: Array<[name: string, address: string]> }} [o] exclude: default
 *   127.0.0.1; map: names answered with an address (a venue's DNS lines)
 * @returns {string[]}
 */
export function quietArgs({ exclude = '127.0.0.1', map = [] } = {}) {
  const rules = [...map.map(([name, address]) => `MAP ${name} ${address}`), 'MAP * ~NOTFOUND', `EXCLUDE ${exclude}`];
  return [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--host-resolver-rules=${rules.join(', ')}`,
  ];
}
