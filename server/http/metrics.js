// Prometheus metrics (prom-client): connections by transport, messages and bytes sent, push lag,
// plus the default process metrics (event-loop lag, heap, RSS, CPU).

import client from 'prom-client';
import { LOOP_LAG_RESOLUTION_MS } from '../../core/constants.js';

/**
 * @typedef {object} HubMetrics
 * @property {(kind: string, messages: number, bytes: number) => void} [sent]
 * @property {(kind: string, delta: number) => void} [clients]
 * @property {(seconds: number) => void} [pushLag] time from a change to its last socket write
 * @property {(kind: string, reason: string) => void} [dropped]
 */

/**
 * @returns {{ registry: import('prom-client').Registry, hooks: HubMetrics, observeHistory: (read: () => { deltas: number, bytes: number }) => void, beatLate: (ms: number) => void }}
 */
export function createMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: LOOP_LAG_RESOLUTION_MS });
  const clients = new client.Gauge({
    name: 'scorecast_clients',
    help: 'Open connections by transport (poll: long polls being held)',
    labelNames: ['transport'],
    registers: [registry],
  });
  const messages = new client.Counter({
    name: 'scorecast_messages_sent_total',
    help: 'Messages sent to clients',
    labelNames: ['transport'],
    registers: [registry],
  });
  const bytes = new client.Counter({
    name: 'scorecast_bytes_sent_total',
    help: 'Bytes of messages sent to clients (payload and framing)',
    labelNames: ['transport'],
    registers: [registry],
  });
  const dropped = new client.Counter({
    name: 'scorecast_connections_dropped_total',
    help: 'Connections the server closed',
    labelNames: ['transport', 'reason'],
    registers: [registry],
  });
  const lag = new client.Histogram({
    name: 'scorecast_push_lag_seconds',
    help: 'Time from a state change to its last socket write on this server',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  const beatLateness = new client.Histogram({
    name: 'scorecast_beat_lateness_seconds',
    help: "How late the conductor ran each beat against its ideal time (the event loop's delay as the music feels it)",
    buckets: [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  for (const t of ['ws', 'sse', 'poll']) clients.set({ transport: t }, 0);
  /** @type {() => { deltas: number, bytes: number }} */
  let history = () => ({ deltas: 0, bytes: 0 });
  new client.Gauge({
    name: 'scorecast_history_deltas',
    help: 'Deltas held for resync (bounded: a soak is warm once this stops growing)',
    registers: [registry],
    collect() {
      this.set(history().deltas);
    },
  });
  new client.Gauge({
    name: 'scorecast_history_bytes',
    help: 'Bytes of the deltas held for resync (JSON text, before framing)',
    registers: [registry],
    collect() {
      this.set(history().bytes);
    },
  });
  return {
    registry,
    /**
     * Where the history gauges read from (the hub is built after the metrics).
     * @param {() => { deltas: number, bytes: number }} read
     */
    observeHistory(read) {
      history = read;
    },
    /**
     * A beat ran `ms` after its ideal time (the conductor fires a beat at most 1 ms early).
     * @param {number} ms
     */
    beatLate(ms) {
      beatLateness.observe(Math.max(0, ms) / 1000);
    },
    hooks: {
      sent: (kind, n, b) => {
        messages.inc({ transport: kind }, n);
        bytes.inc({ transport: kind }, b);
      },
      clients: (kind, delta) => {
        clients.inc({ transport: kind }, delta);
      },
      pushLag: (s) => {
        lag.observe(s);
      },
      dropped: (kind, reason) => {
        dropped.inc({ transport: kind, reason });
      },
    },
  };
}
