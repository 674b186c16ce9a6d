import { describe, it, expect } from 'vitest';
import path from 'node:path';
import { readConfig } from '../../../server/commands/config.js';

describe('configuration', () => {
  it('defaults: port 8080 on all interfaces, the demo, a generated token, plain HTTP', () => {
    const c = readConfig([], {});
    expect(c).toMatchObject({ port: 8080, host: '0.0.0.0', tokenGenerated: true, autoplay: false, tls: null });
    expect(c.scoreDir).toMatch(/scores[/\\]demo$/);
    expect(c.token.length).toBeGreaterThanOrEqual(16);
  });

  it('flags win over the environment', () => {
    const c = readConfig(['--port', '9000', '--token', 'flag-token-1'], {
      PORT: '7000',
      SCORECAST_TOKEN: 'env-token-12',
    });
    expect(c).toMatchObject({ port: 9000, token: 'flag-token-1', tokenGenerated: false });
  });

  it('HTTPS from a certificate and its key, by flags or environment', () => {
    expect(readConfig(['--cert', 'c.pem', '--key', 'k.pem'], {}).tls).toEqual({
      cert: path.resolve('c.pem'),
      key: path.resolve('k.pem'),
    });
    expect(readConfig([], { SCORECAST_CERT: '/etc/c.pem', SCORECAST_KEY: '/etc/k.pem' }).tls).toEqual({
      cert: path.resolve('/etc/c.pem'),
      key: path.resolve('/etc/k.pem'),
    });
  });

  it('saves the performance to a file of its --score in .cache and resumes it, unless told otherwise', () => {
    const c = readConfig([], {});
    expect(c.stateFile).toMatch(/[/\\]\.cache[/\\]performance-demo-[0-9a-f]{8}\.json$/);
    // One save per score folder: two servers on two scores never share one, even when the
    // folders have the same name.
    const a = readConfig(['--score', '/srv/room1/piece'], {}).stateFile;
    const b = readConfig(['--score', '/srv/room2/piece'], {}).stateFile;
    expect(a).toMatch(/performance-piece-[0-9a-f]{8}\.json$/);
    expect(b).toMatch(/performance-piece-[0-9a-f]{8}\.json$/);
    expect(a).not.toBe(b);
    expect(readConfig(['--score', '/srv/room1/piece/'], {}).stateFile).toBe(a);
    expect(c.resume).toBe(true);
    expect(readConfig(['--state-file', 's.json', '--no-resume'], {})).toMatchObject({
      stateFile: path.resolve('s.json'),
      resume: false,
    });
    expect(readConfig([], { SCORECAST_STATE_FILE: '/var/sc.json', SCORECAST_RESUME: '0' })).toMatchObject({
      stateFile: path.resolve('/var/sc.json'),
      resume: false,
    });
    // The autoplay demo starts from the top anyway, and must not overwrite a real save.
    expect(readConfig(['--autoplay', '--state-file', 's.json'], {}).stateFile).toBeNull();
  });

  it('per-address caps: 32 phones and 512 connections by default; a venue behind one NAT raises them (0: no limit)', () => {
    expect(readConfig([], {})).toMatchObject({ phonesPerAddress: 32, connectionsPerAddress: 512 });
    expect(readConfig(['--phones-per-address', '800', '--connections-per-address', '0'], {})).toMatchObject({
      phonesPerAddress: 800,
      connectionsPerAddress: 0,
    });
    expect(
      readConfig([], { SCORECAST_PHONES_PER_ADDRESS: '500', SCORECAST_CONNECTIONS_PER_ADDRESS: '2000' }),
    ).toMatchObject({ phonesPerAddress: 500, connectionsPerAddress: 2000 });
  });

  it.each([
    [['--phones-per-address=-1'], {}, /--phones-per-address must be a whole number >= 0/],
    [[], { SCORECAST_CONNECTIONS_PER_ADDRESS: 'lots' }, /--connections-per-address must be a whole number/],
    [['--port', '70000'], {}, /PORT\/--port must be 0..65535/],
    [['--port', 'eighty'], {}, /PORT\/--port/],
    [['--token', 'short'], {}, /at least 8 characters/],
    [['--cert', 'c.pem'], {}, /both a certificate and its key/],
    [[], { SCORECAST_KEY: 'k.pem' }, /both a certificate and its key/],
    [['--colour'], {}, /Unknown option/],
  ])('refuses %j %j with a clear message', (argv, env, message) => {
    expect(() => readConfig(/** @type {string[]} */ (argv), env)).toThrow(message);
  });
});

describe('cluster configuration', () => {
  it('is one process on its own unless --redis is given', () => {
    expect(readConfig([], {})).toMatchObject({ cluster: null, trustProxy: null });
  });

  it('reads --redis, --role (default both) and --node-id, and saves the performance in Redis, not a file', () => {
    expect(readConfig(['--redis', 'redis://10.0.0.2:6379'], {})).toMatchObject({
      cluster: { url: 'redis://10.0.0.2:6379', role: 'both', nodeId: null },
      stateFile: null,
    });
    expect(
      readConfig(['--role', 'edge', '--node-id', 'edge-2'], { SCORECAST_REDIS: 'redis://r:6379' }).cluster,
    ).toEqual({ url: 'redis://r:6379', role: 'edge', nodeId: 'edge-2', passwordFile: null, ca: null });
    expect(readConfig([], { SCORECAST_REDIS: 'redis://r:6379', SCORECAST_ROLE: 'conductor' }).cluster?.role).toBe(
      'conductor',
    );
  });

  it("reads Redis's password and CA from files, and refuses a password on the command line, where ps shows it", () => {
    expect(
      readConfig(['--redis-password-file', 'edge.password', '--redis-ca', 'ca.crt'], {
        SCORECAST_REDIS: 'rediss://scorecast-edge@10.0.0.2:6379',
      }).cluster,
    ).toMatchObject({
      url: 'rediss://scorecast-edge@10.0.0.2:6379',
      passwordFile: path.resolve('edge.password'),
      ca: path.resolve('ca.crt'),
    });
    expect(
      readConfig([], {
        SCORECAST_REDIS: 'redis://scorecast-edge:s3cret-pw@10.0.0.2:6379',
        SCORECAST_REDIS_PASSWORD_FILE: '/etc/scorecast/p',
      }).cluster,
    ).toMatchObject({ url: 'redis://scorecast-edge:s3cret-pw@10.0.0.2:6379', passwordFile: '/etc/scorecast/p' });
    const onCommandLine = () => readConfig(['--redis', 'redis://scorecast-edge:s3cret-pw@10.0.0.2:6379'], {});
    expect(onCommandLine).toThrow(/must not carry a password: `ps` shows the command line/);
    expect(onCommandLine).toThrow(expect.objectContaining({ message: expect.not.stringContaining('s3cret-pw') }));
  });

  it('reads the proxies to trust', () => {
    expect(readConfig(['--trust-proxy', '127.0.0.1, 10.0.0.0/8'], {}).trustProxy).toEqual(['127.0.0.1', '10.0.0.0/8']);
  });

  it.each([
    [['--role', 'edge'], {}, /--role needs --redis/],
    [['--redis', 'redis://r:6379', '--role', 'leader'], {}, /--role must be conductor, edge or both/],
    [['--redis', 'localhost:6379'], {}, /--redis must be a URL/],
    [['--redis-password-file', 'p'], {}, /--redis-password-file and --redis-ca need --redis/],
  ])('refuses %j with a clear message', (argv, env, message) => {
    expect(() => readConfig(/** @type {string[]} */ (argv), env)).toThrow(message);
  });
});

describe('the venue name and the plain-HTTP redirect', () => {
  const tls = ['--cert', 'c.pem', '--key', 'k.pem'];
  it('reads --public-url as an origin, by flag or environment; none by default', () => {
    expect(readConfig([], {})).toMatchObject({ publicUrl: null, httpPort: null });
    expect(readConfig([...tls, '--public-url', 'https://Score.Example.org/'], {}).publicUrl).toBe(
      'https://score.example.org',
    );
    // The scheme's own port is dropped; another is kept (phones must open it).
    expect(readConfig([], { SCORECAST_PUBLIC_URL: 'https://score.example.org:443' }).publicUrl).toBe(
      'https://score.example.org',
    );
    expect(readConfig([], { SCORECAST_PUBLIC_URL: 'https://score.example.org:8443' }).publicUrl).toBe(
      'https://score.example.org:8443',
    );
    expect(readConfig(['--public-url', 'http://score.lan'], {}).publicUrl).toBe('http://score.lan');
  });

  it('reads --http-port with HTTPS and an https venue name', () => {
    const c = readConfig([...tls, '--public-url', 'https://score.example.org', '--http-port', '80'], {});
    expect(c).toMatchObject({ httpPort: 80, port: 8080 });
    expect(
      readConfig([...tls], { SCORECAST_PUBLIC_URL: 'https://score.example.org', SCORECAST_HTTP_PORT: '8081' }).httpPort,
    ).toBe(8081);
  });

  it.each([
    [['--public-url', 'score.example.org'], /--public-url must be an address like https:\/\/score\.example\.org/],
    [['--public-url', 'https://score.example.org/audience'], /--public-url must be an address like/],
    [['--public-url', 'https://score.example.org/?x=1'], /--public-url must be an address like/],
    [['--public-url', 'https://user:pw@score.example.org'], /--public-url must be an address like/],
    [['--public-url', 'ftp://score.example.org'], /--public-url must be an address like/],
    [
      [...tls, '--public-url', 'http://score.example.org'],
      /--public-url must be https:\/\/ when the server serves HTTPS/,
    ],
    [
      ['--http-port', '80'],
      /--http-port redirects plain HTTP to HTTPS: it needs --cert FILE --key FILE and --public-url/,
    ],
    [[...tls, '--http-port', '80'], /it needs --cert FILE --key FILE and --public-url https/],
    [[...tls, '--public-url', 'https://s.example.org', '--http-port', '8080'], /--http-port and --port must differ/],
    [[...tls, '--public-url', 'https://s.example.org', '--http-port', '70000'], /--http-port must be 0\.\.65535/],
    [[...tls, '--public-url', 'https://s.example.org', '--http-port', 'eighty'], /--http-port must be 0\.\.65535/],
  ])('refuses %j with a clear message', (argv, message) => {
    expect(() => readConfig(argv, {})).toThrow(message);
  });
});
