// Small score models and fake transport links shared by server tests.

import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { buildScoreModel } from '../../core/manifest.js';

/**
 * A 4-bar 4/4 score at `tempo` bpm with a cue every bar.
 * @param {{ tempo?: number, bars?: number }} [options]
 */
export function smallModel({ tempo = 120, bars = 4 } = {}) {
  const r = buildScoreModel({
    id: 'fixture',
    title: 'Fixture',
    bars,
    meter: [{ bar: 1, time: '4/4', tempo }],
    cues: Array.from({ length: bars }, (_, i) => ({ bar: i + 1, set: { text: `bar ${i + 1}` } })),
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.value;
}

/** test/fixtures/open-form/three-sections.yaml: parts and the `openForm` of a 12-bar piece. */
export const OPEN_FORM_FIXTURE = parse(
  readFileSync(new URL('../fixtures/open-form/three-sections.yaml', import.meta.url), 'utf8'),
);

/**
 * What a test sets on one section of the open-form fixture: its audience switches, its overlays,
 * its meter rules.
 * @typedef {{ audience?: Partial<import('../../core/open-form.js').AudienceSwitches>, overlays?: object[], when?: unknown[] }} SectionOverrides
 */

/**
 * The open-form fixture's piece: 4/4 at 120 (500 ms a beat), 12 bars, 48 beats.
 * @param {Record<string, SectionOverrides>} [sections]  what to set on each section, by section id
 */
export function openFormModel(sections = {}) {
  const openForm = structuredClone(OPEN_FORM_FIXTURE.openForm);
  for (const s of openForm.sections) {
    const o = sections[s.id];
    if (o?.audience) s.audience = o.audience;
    if (o?.overlays) s.overlays = o.overlays;
    if (o?.when) s.when = o.when;
  }
  const r = buildScoreModel({
    id: 'open',
    title: 'Open',
    parts: OPEN_FORM_FIXTURE.parts.map((/** @type {string} */ id) => ({ id, name: id })),
    bars: 12,
    meter: [{ bar: 1, time: '4/4', tempo: 120 }],
    openForm,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.value;
}

/**
 * The text of what a link was sent: JSON as is, or the payload of one whole unmasked WebSocket
 * text frame (what the hub sends to 'ws' links once the WebSocket transport is attached).
 * @param {Buffer} b
 */
function payloadOf(b) {
  if (b[0] !== 0x81) return b.toString();
  const len7 = b[1] & 0x7f;
  const [offset, length] =
    len7 === 126 ? [4, b.readUInt16BE(2)] : len7 === 127 ? [10, Number(b.readBigUInt64BE(2))] : [2, len7];
  if (b[1] & 0x80 || offset + length !== b.length) throw new Error('not one whole unmasked frame');
  return b.subarray(offset).toString();
}

/**
 * A Link that records what it was sent; `queued` simulates bytes not yet on the network.
 * @param {string} [kind]
 */
export function fakeLink(kind = 'ws') {
  const link = {
    kind,
    queued: 0,
    /** @type {Buffer[]} */
    sent: [],
    /** @type {{ code: number, reason: string } | null} */
    closed: null,
    /** @param {Buffer} b */
    send(b) {
      link.sent.push(b);
    },
    buffered: () => link.queued,
    /** @param {number} code @param {string} reason */
    close(code, reason) {
      link.closed = { code, reason };
    },
    /** Envelopes received, parsed. */
    get messages() {
      return link.sent.map((b) => JSON.parse(payloadOf(b)));
    },
    /** @param {string} type */
    ofType(type) {
      return link.messages.filter((m) => m.type === type);
    },
  };
  return link;
}

/**
 * A loaded package around a model, with no files (for app tests that need no assets).
 * @param {import('../../core/manifest.js').ScoreModel} model
 * @returns {import('../../server/package/load.js').ScorePackage}
 */
export function packageOf(model) {
  return { dir: '.', model, assets: [], views: {}, videos: {}, files: new Map(), warnings: [] };
}

/**
 * A valid device status for the roster (core/roster.js); `over` replaces fields.
 * @param {Record<string, unknown>} [over]
 * @returns {any}
 */
export const deviceStatus = (over = {}) => ({
  id: 'dabc123',
  name: 'cello desk 1',
  link: 'live',
  playback: 'stopped',
  epoch: 'e1',
  seq: 4,
  clockError: 2.5,
  rtt: 1.2,
  audio: true,
  outputMs: 45,
  awake: 'wake-lock',
  assets: true,
  app: '0.1.0+abc',
  ...over,
});

/**
 * The first bytes of a PNG of `width` x `height`: its signature and IHDR, enough for
 * server/package/image-size.js to read its size (the pixels are never looked at).
 * @param {number} [width]
 * @param {number} [height]
 */
export function pngHeader(width = 1200, height = 800) {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b;
}

/**
 * A score package in a new temporary folder: its score.yaml and the files named (paths relative
 * to the package, folders made as needed).
 * @param {string} yaml
 * @param {Record<string, string | Buffer>} [files]
 * @param {string} [prefix]  of the folder's name
 * @returns {string} the folder
 */
export function packageDir(yaml, files = {}, prefix = 'sc-pkg-') {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  writeFileSync(path.join(dir, 'score.yaml'), yaml);
  for (const [name, body] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), body);
  }
  return dir;
}
