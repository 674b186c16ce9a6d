// What the start banner says about where phones go, and how its QR code is drawn.

/**
 * The addresses the banner gives the audience: the venue's address (`--public-url`) first when
 * there is one, since it is the one the certificate names; then this machine's own.
 * @param {{ publicUrl: string | null, scheme: 'http' | 'https', hosts: string[], port: number }} o
 * @returns {{ audienceUrl: string, lines: string[] }}  audienceUrl: the one the QR code encodes
 */
export function audienceLines({ publicUrl, scheme, hosts, port }) {
  const own = hosts.map((h) => `${scheme}://${h.includes(':') ? `[${h}]` : h}:${port}/`);
  const audienceUrl = publicUrl ? `${publicUrl}/` : own[0];
  const lines = publicUrl
    ? [`  audience:  ${audienceUrl}  (this machine: ${own.join('  ')})`]
    : [`  audience:  ${own.join('  ')}`];
  if (audienceUrl.startsWith('http:'))
    lines.push(
      '  note:      plain HTTP: no Wake Lock (phones keep the screen on with a silent video) and no offline copy (HTTPS: doc/venue-https.md)',
    );
  return { audienceUrl, lines };
}

/**
 * How to draw the QR code, or null for none. Only on a terminal unless SCORECAST_QR=1 asks for it
 * anyway: in a log file it is noise. ANSI colours only on a terminal without NO_COLOR
 * (https://no-color.org); otherwise plain block characters, which scan on a light background.
 * @param {{ isTTY: boolean, env: Record<string, string | undefined> }} o
 * @returns {'terminal' | 'utf8' | null}  the `type` for qrcode's toString
 */
export function qrType({ isTTY, env }) {
  if (env.SCORECAST_QR === '0') return null;
  if (!isTTY && env.SCORECAST_QR !== '1') return null;
  return isTTY && !env.NO_COLOR ? 'terminal' : 'utf8';
}
