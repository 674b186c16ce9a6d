// Preloaded into a benchmark's server (`NODE_OPTIONS="--import ./bench/mem-watch.js"`, with
// MEM_WATCH_FILE set): every 2 s, one JSON line of where the server's memory is, so that an RSS
// that rises in a phase can be put down to V8's heap (each space's pages and what is live in
// them), external memory (Buffers) or the allocator (the brk heap, and anonymous mappings beyond
// V8's pages). Only in server/commands/start.js: a benchmark's client processes inherit
// NODE_OPTIONS too, and do nothing with it.
//
//   MEM_WATCH_FILE=/tmp/mem.jsonl NODE_OPTIONS="--import ./bench/mem-watch.js" node bench/thumbs.js ...
//
// Each line: s (seconds since the server started), rss, heapUsed, external, arrayBuffers, v8
// (V8's pages in memory), brk / anon / file (RSS by kind of mapping), and per V8 space
// [in memory, used], all in MB.

import { appendFileSync, readFileSync } from 'node:fs';
import v8 from 'node:v8';

const out = process.env.MEM_WATCH_FILE;
if (out && /server[/\\]commands[/\\]start\.js$/.test(process.argv[1] ?? '')) {
  const t0 = Date.now();
  const mb = (/** @type {number} */ n) => Math.round((n / 1048576) * 10) / 10;
  /** RSS by kind of mapping (MB), as bench/heap-probe.js counts it. */
  const byMapping = () => {
    /** @type {Record<string, number>} */
    const by = { brk: 0, anon: 0, file: 0 };
    let kind = 'anon';
    for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
      const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
      if (head) kind = head[1] === '[heap]' ? 'brk' : head[1] === '' || head[1].startsWith('[') ? 'anon' : 'file';
      else if (line.startsWith('Rss:')) by[kind] += Number(line.split(/\s+/)[1]) / 1024;
    }
    for (const k of Object.keys(by)) by[k] = Math.round(by[k] * 10) / 10;
    return by;
  };
  setInterval(() => {
    const m = process.memoryUsage();
    /** @type {Record<string, number[]>} */
    const spaces = {};
    let inMemory = 0;
    for (const s of v8.getHeapSpaceStatistics()) {
      if (s.physical_space_size === 0) continue;
      spaces[s.space_name.replace(/_space$/, '')] = [mb(s.physical_space_size), mb(s.space_used_size)];
      inMemory += s.physical_space_size;
    }
    const line = {
      s: Math.round((Date.now() - t0) / 1000),
      rss: mb(m.rss),
      heapUsed: mb(m.heapUsed),
      external: mb(m.external),
      arrayBuffers: mb(m.arrayBuffers),
      v8: mb(inMemory),
      ...byMapping(),
      spaces,
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  }, 2000).unref();
}
