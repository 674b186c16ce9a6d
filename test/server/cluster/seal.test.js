import { describe, it, expect } from 'vitest';
import { clusterKey, createSeal, sealed, unseal } from '../../../server/cluster/seal.js';

const seal = createSeal(clusterKey('seal-test-token-0123'));
const other = createSeal(clusterKey('seal-test-token-4567'));

describe('cluster seal', () => {
  it("MACs a Buffer as its bytes: a string's tag verifies on its UTF-8 bytes, and the other way round", () => {
    const text = '{"type":"delta","epoch":"é1","seq":3,"patch":{"n":"ü"}}';
    const tag = seal.sign('p:stream', text);
    expect(seal.sign('p:stream', Buffer.from(text))).toBe(tag);
    expect(seal.verify('p:stream', Buffer.from(text), tag)).toBe(true);
    expect(seal.verify('p:stream', text, seal.sign('p:stream', Buffer.from(text)))).toBe(true);
  });

  it('refuses a changed byte, another purpose, another key, and what is neither a string nor a Buffer', () => {
    const bytes = Buffer.from('{"seq":3}');
    const tag = seal.sign('p:stream', bytes);
    const changed = Buffer.from(bytes);
    changed[2] ^= 1;
    expect(seal.verify('p:stream', changed, tag)).toBe(false);
    expect(seal.verify('p:latest', bytes, tag)).toBe(false);
    expect(other.verify('p:stream', bytes, tag)).toBe(false);
    expect(seal.verify('p:stream', [...bytes], tag)).toBe(false);
    expect(seal.verify('p:stream', bytes, `${tag}x`)).toBe(false);
  });

  it('seals and unseals a value kept whole', () => {
    const value = sealed(seal, 'p:record', '{"a":1}');
    expect(unseal(seal, 'p:record', value)).toBe('{"a":1}');
    expect(unseal(other, 'p:record', value)).toBeNull();
    expect(unseal(seal, 'p:record', value.replace('"a"', '"b"'))).toBeNull();
  });
});
