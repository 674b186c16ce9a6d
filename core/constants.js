// Constants shared by the server, the browser client and the QA tools. A leaf module: imports nothing.

/** Version of the live protocol described in doc/protocol.md. */
export const PROTOCOL_VERSION = 1;

/** Interval of application heartbeats on every transport (ms). */
export const HEARTBEAT_MS = 2000;

/**
 * A client that hears nothing for this long treats the link as dead and reconnects.
 * Two and a half heartbeats: one lost heartbeat is tolerated, a dead link is found within 5 s.
 */
export const DEAD_LINK_MS = 5000;

/** Largest client-to-server message accepted (bytes). Larger WebSocket frames close with 1009. */
export const MAX_CLIENT_MESSAGE_BYTES = 4096;

/** Client message rate limit: a token bucket per connection. */
export const CLIENT_RATE = Object.freeze({ perSecond: 20, burst: 40 });

/** A connection that keeps flooding after this many rejected messages is closed (4002). */
export const FLOOD_CLOSE_AFTER = 200;

/**
 * Rejected messages count toward FLOOD_CLOSE_AFTER only while each comes within this time (ms) of
 * the one before: an honest page's burst long past (a reconnect's catch-up, a stuck button) is
 * forgotten, so a phone in a two-hour performance is not closed for bursts hours apart.
 */
export const FLOOD_QUIET_MS = 10_000;

/** Longest long-poll hold the server grants (ms); larger `wait` values are clamped. */
export const MAX_POLL_WAIT_MS = 25000;

/** SSE `retry:` hint sent to EventSource (ms). */
export const SSE_RETRY_MS = 1000;

/** Close codes the server uses on WebSocket connections (doc/protocol.md, "Close codes"). */
export const CLOSE = Object.freeze({
  /** Normal shutdown of the server. */
  GOING_AWAY: 1001,
  /** A frame larger than MAX_CLIENT_MESSAGE_BYTES (sent by the ws library). */
  TOO_BIG: 1009,
  /** The client stayed too far behind the live stream. */
  TOO_SLOW: 4001,
  /** The client kept sending after being rate-limited. */
  FLOOD: 4002,
});

/** Transport names, in the client's fallback order. */
export const TRANSPORTS = Object.freeze(['ws', 'sse', 'poll']);

/**
 * The server's prom-client samples event-loop delay with a timer of this period (ms); its lag values include
 * it. Each of its wakeups costs about 0.08 ms of CPU on these machines whatever the load: at 10 ms
 * (prom-client's default) 5-6 ms of CPU a second, more than the beats of a score, at 50 ms 1.7 ms
 * a second, which was half of an idle server's CPU and 5% of a 1,500-client one's (bench/RESULTS.md,
 * "Idle cost"). At 250 ms a stall longer than 250 ms shows at no less than its length minus 250 ms,
 * a shorter one only when the sample falls in it; what the music feels is measured exactly and
 * for free by `scorecast_beat_lateness_seconds`, the delay of every beat's timer.
 */
export const LOOP_LAG_RESOLUTION_MS = 250;
