// The audience meter's cost (core/audience-meter.js): 1,500 phones sending thumbs at 2 a second
// for 60 s of simulated time, with the server polling the meter every 250 ms. Reported as a ratio
// to a baseline measured in the same run on the same messages: decoding each thumb's JSON (which
// the server does for every client message anyway). And what goes out: how many meter patches,
// how big their delta envelopes are, and the bytes a second that makes at 1,500 clients.
//
//   node bench/meter.js [--phones 1500] [--rate 2] [--seconds 60] [--repeat 5]

import { AudienceMeter, meterPatch } from '../core/audience-meter.js';
import { encode } from '../core/protocol.js';
import { benchArgs } from './cli-args.js';

const { values } = benchArgs(import.meta.url, {
  options: {
    phones: { type: 'string', default: '1500' },
    rate: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '60' },
    repeat: { type: 'string', default: '5' },
  },
});
const PHONES = Number(values.phones);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const REPEAT = Number(values.repeat);

/** The thumbs of a run, in time order: [t ms, phone, up/down], each phone at RATE a second. */
function schedule() {
  /** @type {[number, number, 'up' | 'down'][]} */
  const out = [];
  const gap = 1000 / RATE;
  for (let t0 = 0; t0 < SECONDS * 1000; t0 += gap)
    for (let p = 0; p < PHONES; p++)
      // phones spread over the gap; opinion drifts from mostly up to mostly down
      out.push([t0 + (p * gap) / PHONES, p, (p * 7919 + t0) % 1000 < 1000 - t0 / SECONDS ? 'up' : 'down']);
  return out;
}

const devices = Array.from({ length: PHONES }, (_, p) => `phone-${String(p).padStart(6, '0')}`);
const thumbs = schedule();
const messages = thumbs.map(([, p, v]) => JSON.stringify({ type: 'thumb', device: devices[p], value: v }));

function baseline() {
  let n = 0;
  const start = process.hrtime.bigint();
  for (const m of messages) if (JSON.parse(m).value === 'up') n++;
  return { ns: Number(process.hrtime.bigint() - start), n };
}

function meterRun() {
  const meter = new AudienceMeter({}, 0);
  meter.setOpen(true, 0);
  let refused = 0;
  /** @type {number[]} */
  const published = [];
  let nextPoll = 250;
  const start = process.hrtime.bigint();
  for (const [t, p, v] of thumbs) {
    while (t >= nextPoll) {
      const value = meter.poll(nextPoll);
      if (value !== null) published.push(value);
      nextPoll += 250;
    }
    if (!meter.thumb(devices[p], v, t).ok) refused++;
  }
  return { ns: Number(process.hrtime.bigint() - start), refused, published };
}

/** @type {number[]} */
const ratios = [];
let last = meterRun();
for (let r = 0; r < REPEAT; r++) {
  const b = baseline();
  last = meterRun();
  ratios.push(last.ns / b.ns);
}
ratios.sort((a, b) => a - b);
const envelope = encode({
  type: 'delta',
  epoch: 'mk3j9x2a',
  seq: 123456,
  t: 1764180000000.25,
  patch: meterPatch(-0.42),
});
const perSecond = last.published.length / SECONDS;
console.log(
  JSON.stringify(
    {
      phones: PHONES,
      thumbsPerSecond: PHONES * RATE,
      thumbs: thumbs.length,
      refused: last.refused,
      meterNsPerThumb: Math.round(last.ns / thumbs.length),
      ratioToJsonDecode: { median: ratios[Math.floor(ratios.length / 2)], min: ratios[0], max: ratios.at(-1) },
      patches: last.published.length,
      patchesPerSecond: perSecond,
      patchBytes: JSON.stringify(meterPatch(-0.42)).length,
      envelopeBytes: envelope.length,
      fanOutBytesPerSecondAt1500: Math.round(perSecond * envelope.length * 1500),
    },
    null,
    2,
  ),
);
