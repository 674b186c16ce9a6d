#!/usr/bin/env node
// Where a server's heap goes, from a .heapsnapshot (bench/heap-probe.js writes them): self size
// and count by constructor (objects), by function name (closures), by node type, with the
// per-connection figure when --per N is given; with two snapshots, the difference per connection.
//
//   node bench/heap-summary.js SNAPSHOT [--per 1500] [--base FLOOR_SNAPSHOT] [--top 40]

import { readFileSync } from 'node:fs';
import { benchArgs } from './cli-args.js';

/**
 * @param {string} file
 * @returns {Map<string, { count: number, size: number }>} by category
 */
export function summarize(file) {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const meta = snap.snapshot.meta;
  const nf = meta.node_fields.length;
  const types = meta.node_types[0];
  const iType = meta.node_fields.indexOf('type');
  const iName = meta.node_fields.indexOf('name');
  const iSize = meta.node_fields.indexOf('self_size');
  const nodes = snap.nodes;
  const strings = snap.strings;
  /** @type {Map<string, { count: number, size: number }>} */
  const by = new Map();
  const add = (/** @type {string} */ k, /** @type {number} */ s) => {
    const e = by.get(k);
    if (e) {
      e.count++;
      e.size += s;
    } else by.set(k, { count: 1, size: s });
  };
  for (let i = 0; i < nodes.length; i += nf) {
    const type = types[nodes[i + iType]];
    const name = strings[nodes[i + iName]];
    const size = nodes[i + iSize];
    let key;
    if (type === 'object' || type === 'native') key = `${type}:${name}`;
    else if (type === 'closure') key = `closure:${name || '(anonymous)'}`;
    else if (type === 'hidden' || type === 'code' || type === 'array' || type === 'object shape')
      key = `${type}:${name.slice(0, 40)}`;
    else key = type;
    add(key, size);
    add(`TOTAL:${type}`, size);
    add('TOTAL', size);
  }
  return by;
}

function main() {
  const { values, positionals } = benchArgs(import.meta.url, {
    options: {
      per: { type: 'string', default: '1' },
      base: { type: 'string' },
      top: { type: 'string', default: '40' },
    },
    allowPositionals: true,
  });
  const per = Number(values.per);
  const top = Number(values.top);
  const ours = summarize(positionals[0]);
  const base = values.base ? summarize(values.base) : new Map();
  const keys = new Set([...ours.keys(), ...base.keys()]);
  const rows = [...keys].map((k) => {
    const a = ours.get(k) ?? { count: 0, size: 0 };
    const b = base.get(k) ?? { count: 0, size: 0 };
    return { k, count: a.count, size: a.size, dCount: (a.count - b.count) / per, dSize: (a.size - b.size) / per };
  });
  rows.sort((x, y) => Math.abs(y.dSize) - Math.abs(x.dSize));
  const totals = rows.filter((r) => r.k.startsWith('TOTAL'));
  const others = rows.filter((r) => !r.k.startsWith('TOTAL')).slice(0, top);
  const fmt = (/** @type {typeof rows[number]} */ r) =>
    `${r.dSize.toFixed(1).padStart(10)} B/conn ${r.dCount.toFixed(2).padStart(8)} n/conn  ${String(r.size).padStart(11)} B ${String(r.count).padStart(8)}  ${r.k}`;
  process.stdout.write(`${values.base ? 'minus base, ' : ''}per ${per}\n`);
  for (const r of totals) process.stdout.write(`${fmt(r)}\n`);
  process.stdout.write('--\n');
  for (const r of others) process.stdout.write(`${fmt(r)}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
