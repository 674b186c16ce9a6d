import { describe, it, expect } from 'vitest';
import { cell } from '../../../client/src/conduct/roster-panel.js';

describe('console: the roster', () => {
  it("shows each device's sound output, flagged as a Bluetooth headset when the server says it is slow", () => {
    expect(cell('outputMs', { outputMs: 182.4, slowOutput: true })).toBe('182 ms (Bluetooth?)');
    expect(cell('outputMs', { outputMs: 45, slowOutput: false })).toBe('45 ms');
    // Before its audio runs, or from a page that does not say.
    expect(cell('outputMs', { outputMs: null, slowOutput: false })).toBe('–');
    expect(cell('outputMs', {})).toBe('–');
  });
});
