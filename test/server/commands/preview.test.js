import path from 'node:path';
import { describe, it, expect } from 'vitest';
import { openCommand, planPreview, previewUrl } from '../../../server/commands/preview.js';

/** @param {string[]} argv @param {Record<string, string | undefined>} [env] @param {NodeJS.Platform} [platform] */
function plan(argv, env = {}, platform = 'linux') {
  const r = planPreview(argv, env, platform);
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

/** @param {string[]} args @param {string} name */
const flag = (args, name) => args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);

describe('scorecast preview: arguments', () => {
  it('serves the package on loopback, watching it, waiting for play, with a token of its own', () => {
    const p = plan(['scores/demo'], { SCORECAST_AUTOPLAY: '1', DISPLAY: ':0' });
    expect(p.config.scoreDir).toBe(path.resolve('scores/demo'));
    expect(p.config.host).toBe('127.0.0.1');
    expect(p.config.watch).toBe(true);
    expect(p.config.autoplay).toBe(false);
    expect(p.config.port).toBe(8080);
    expect(p.config.token).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(flag(p.startArgs, '--token')).toBe(p.config.token);
    expect(p.env.SCORECAST_AUTOPLAY).toBeUndefined();
    expect(p.env.SCORECAST_QR).toBe('0');
    expect(p.open).toBe(true);
  });

  it('passes values that start with "-" (generated tokens may) as values, not flags', () => {
    expect(plan(['d', '--token=-starts-with-dash']).config.token).toBe('-starts-with-dash');
    // base64url tokens start with "-" one time in 64: many generated ones all work.
    for (let i = 0; i < 300; i++) expect(plan(['d']).config.token).toMatch(/^[A-Za-z0-9_-]{24}$/);
  });

  it("never resumes a saved performance, and keeps its save apart from the performance's", () => {
    const a = plan(['scores/demo']);
    expect(a.startArgs).toContain('--no-resume');
    expect(a.config.resume).toBe(false);
    expect(path.basename(/** @type {string} */ (a.config.stateFile))).toMatch(/^scorecast-preview-[0-9a-f]{16}\.json$/);
    expect(plan(['scores/demo']).config.stateFile).toBe(a.config.stateFile);
    expect(plan(['scores/seed-profile']).config.stateFile).not.toBe(a.config.stateFile);
  });

  it('takes the token from SCORECAST_TOKEN or --token, the port from PORT or --port', () => {
    expect(plan(['d'], { SCORECAST_TOKEN: 'from-the-env' }).config.token).toBe('from-the-env');
    expect(plan(['d', '--token', 'from-a-flag'], { SCORECAST_TOKEN: 'from-the-env' }).config.token).toBe('from-a-flag');
    expect(plan(['d'], { PORT: '9000' }).config.port).toBe(9000);
    expect(plan(['d', '--port', '0'], { PORT: '9000' }).config.port).toBe(0);
  });

  it('shares on the network only when asked, and then shows the QR code', () => {
    const p = plan(['d', '--host', '0.0.0.0'], { SCORECAST_QR: undefined });
    expect(p.config.host).toBe('0.0.0.0');
    expect(p.env.SCORECAST_QR).toBeUndefined();
  });

  it('opens a browser only when one can be shown and --no-open is not given', () => {
    expect(plan(['d', '--no-open'], { DISPLAY: ':0' }).open).toBe(false);
    expect(plan(['d'], {}, 'linux').open).toBe(false);
    expect(plan(['d'], { WAYLAND_DISPLAY: 'wayland-0' }, 'linux').open).toBe(true);
    expect(plan(['d'], {}, 'darwin').open).toBe(true);
    expect(plan(['d'], { CI: 'true' }, 'darwin').open).toBe(false);
  });

  it.each([
    [[], /which score package/],
    [['a', 'b'], /one score package at a time/],
    [['d', '--autoplay'], /Unknown option '--autoplay'/],
    [['d', '--port', 'x'], /--port must be 0\.\.65535/],
    [['d', '--token', 'short'], /at least 8 characters/],
  ])('refuses %j', (argv, message) => {
    const r = planPreview(argv, {}, 'linux');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(message);
  });
});

describe('scorecast preview: the URL it opens', () => {
  const config = plan(['d', '--token', 'a token/with+signs']).config;

  it('carries the token in the fragment, encoded', () => {
    const url = new URL(previewUrl(config, 8123));
    expect(url.origin).toBe('http://127.0.0.1:8123');
    expect(url.pathname).toBe('/preview');
    expect(new URLSearchParams(url.hash.slice(1)).get('token')).toBe('a token/with+signs');
  });

  it('uses loopback for a wildcard address, brackets IPv6, https with a certificate', () => {
    expect(previewUrl({ ...config, host: '0.0.0.0' }, 1)).toMatch(/^http:\/\/127\.0\.0\.1:1\//);
    expect(previewUrl({ ...config, host: '::' }, 1)).toMatch(/^http:\/\/127\.0\.0\.1:1\//);
    expect(previewUrl({ ...config, host: '::1' }, 1)).toMatch(/^http:\/\/\[::1\]:1\//);
    expect(previewUrl({ ...config, host: '192.168.1.5', tls: { cert: 'c', key: 'k' } }, 1)).toMatch(
      /^https:\/\/192\.168\.1\.5:1\//,
    );
  });

  it("opens it with the desktop's own opener", () => {
    expect(openCommand('linux', 'http://x/#token=a')).toEqual({ command: 'xdg-open', args: ['http://x/#token=a'] });
    expect(openCommand('darwin', 'http://x/')).toEqual({ command: 'open', args: ['http://x/'] });
    expect(openCommand('win32', 'http://x/?a=1&b=2')).toEqual({
      command: 'cmd',
      args: ['/c', 'start', '""', 'http://x/?a=1^&b=2'],
      verbatim: true,
    });
  });
});
