// The start banner's audience lines and the QR code's drawing (server/commands/banner.js).

import { describe, it, expect } from 'vitest';
import { audienceLines, qrType } from '../../../server/commands/banner.js';

describe('audience lines', () => {
  it('give the venue address first, and the QR code encodes it', () => {
    const r = audienceLines({
      publicUrl: 'https://score.example.org',
      scheme: 'https',
      hosts: ['10.0.0.2', 'localhost'],
      port: 8443,
    });
    expect(r.audienceUrl).toBe('https://score.example.org/');
    expect(r.lines).toEqual([
      '  audience:  https://score.example.org/  (this machine: https://10.0.0.2:8443/  https://localhost:8443/)',
    ]);
  });

  it('over plain HTTP, the addresses and one line saying what phones miss', () => {
    const r = audienceLines({ publicUrl: null, scheme: 'http', hosts: ['10.0.0.2', 'localhost'], port: 8080 });
    expect(r.audienceUrl).toBe('http://10.0.0.2:8080/');
    expect(r.lines).toEqual([
      '  audience:  http://10.0.0.2:8080/  http://localhost:8080/',
      '  note:      plain HTTP: no Wake Lock (phones keep the screen on with a silent video) and no offline copy (HTTPS: doc/venue-https.md)',
    ]);
    expect(audienceLines({ publicUrl: null, scheme: 'http', hosts: ['::1'], port: 80 }).audienceUrl).toBe(
      'http://[::1]:80/',
    );
  });
});

describe('the QR code', () => {
  it('is drawn on a terminal, in colour unless NO_COLOR is set, and never into a pipe or a log unless asked', () => {
    expect(qrType({ isTTY: true, env: {} })).toBe('terminal');
    expect(qrType({ isTTY: true, env: { NO_COLOR: '1' } })).toBe('utf8');
    // NO_COLOR set but empty does not count (no-color.org).
    expect(qrType({ isTTY: true, env: { NO_COLOR: '' } })).toBe('terminal');
    expect(qrType({ isTTY: false, env: {} })).toBe(null);
    expect(qrType({ isTTY: false, env: { SCORECAST_QR: '1' } })).toBe('utf8');
    expect(qrType({ isTTY: true, env: { SCORECAST_QR: '0' } })).toBe(null);
  });
});
