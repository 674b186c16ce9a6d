// Proof that a lab run stays in the lab: the peers of every TCP socket in the network namespace
// of the given processes (/proc/PID/net/tcp shows that namespace's table), each either in the
// lab's 10.18.0.0/16, on loopback, or unset.

import { readFileSync } from 'node:fs';

/**
 * A /proc/net/tcp address ("0100007F:1F90", or 32 hex digits for tcp6) as dotted IPv4, or the
 * IPv6 text when it is not IPv4-mapped.
 * @param {string} hex
 */
export function procAddress(hex) {
  const [h] = hex.split(':');
  if (h.length === 8) return [3, 2, 1, 0].map((i) => parseInt(h.slice(i * 2, i * 2 + 2), 16)).join('.');
  // tcp6: four 32-bit words, each little-endian.
  const words = [0, 1, 2, 3].map((w) => h.slice(w * 8, w * 8 + 8));
  if (words[0] === '00000000' && words[1] === '00000000' && words[2] === 'FFFF0000') return procAddress(words[3]);
  const bytes = words.flatMap((w) => [3, 2, 1, 0].map((i) => w.slice(i * 2, i * 2 + 2)));
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(parseInt(bytes[i] + bytes[i + 1], 16).toString(16));
  return groups.join(':');
}

/** @param {string} addr */
export function inLab(addr) {
  return (
    addr.startsWith('10.18.') ||
    addr.startsWith('127.') ||
    addr === '0.0.0.0' ||
    addr === '0:0:0:0:0:0:0:0' ||
    addr === '0:0:0:0:0:0:0:1'
  );
}

/**
 * Remote addresses of the TCP sockets in the namespaces of these processes: 'lab' for each in
 * the lab, else the address itself.
 * @param {number[]} pids
 * @returns {string[]}
 */
export function labPeers(pids) {
  const out = [];
  for (const pid of pids) {
    if (!pid) continue;
    for (const table of ['tcp', 'tcp6']) {
      let text = '';
      try {
        text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
      } catch {
        continue;
      }
      for (const line of text.split('\n').slice(1)) {
        const f = line.trim().split(/\s+/);
        if (f.length < 3) continue;
        const remote = procAddress(f[2]);
        out.push(inLab(remote) ? 'lab' : remote);
      }
    }
  }
  return out;
}
