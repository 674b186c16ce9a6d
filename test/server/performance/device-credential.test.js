import { describe, it, expect } from 'vitest';
import { createDeviceCredentials, secretFromToken } from '../../../server/performance/device-credential.js';

describe('device credentials', () => {
  it('verify gives back the id of a credential this secret issued, and null for anything else', () => {
    const a = createDeviceCredentials({ secret: secretFromToken('token-aaaa-1111') });
    const { credential, id } = a.issue();
    expect(a.verify(credential)).toBe(id);
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(a.issue().id).not.toBe(id);
    const b = createDeviceCredentials({ secret: secretFromToken('token-bbbb-2222') });
    expect(b.verify(credential)).toBeNull();
    for (const bad of [
      null,
      42,
      '',
      id,
      `${id}.`,
      `${credential}x`,
      `${id}.${'-'.repeat(22)}`,
      credential.replace('.', '_'),
    ]) {
      expect(a.verify(bad)).toBeNull();
    }
  });

  it('the same conductor token gives the same secret: credentials survive a restart', () => {
    const before = createDeviceCredentials({ secret: secretFromToken('token-aaaa-1111') }).issue();
    const after = createDeviceCredentials({ secret: secretFromToken('token-aaaa-1111') });
    expect(after.verify(before.credential)).toBe(before.id);
  });

  it("a credential has one spelling: the spare bits of the MAC's last character cannot vary", () => {
    const a = createDeviceCredentials({ secret: 'secret-for-the-test' });
    const { credential } = a.issue();
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = credential.at(-1) ?? '';
    const twins = [...alphabet]
      .filter((c) => c !== last)
      .map((c) => credential.slice(0, -1) + c)
      .filter((c) =>
        Buffer.from(c.split('.')[1], 'base64url').equals(Buffer.from(credential.split('.')[1], 'base64url')),
      );
    expect(twins.length).toBeGreaterThan(0);
    for (const twin of twins) expect(a.verify(twin)).toBeNull();
  });
});
