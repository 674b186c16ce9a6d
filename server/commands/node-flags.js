// The Node flags the server is started with, wherever it is started: `npm start`, the `scorecast`
// command and server/commands/start.js (their first line), the systemd unit, and the fan-out
// benchmarks (bench/servers.js reads this file of the checkout it runs). A repository test holds
// them equal.
//
// --max-semi-space-size=2: V8's young generation at most 2 x 2 MB. V8 grows it, up to 2 x 16 MB,
// when many objects survive a scavenge, and a server writing to 1,500 sockets keeps short-lived
// objects (write requests, pong reads) alive across scavenges: it reached its 32 MB and stayed
// there, the largest single part of the server's memory beyond a bare `ws` server's
// (bench/RESULTS.md, fan-out memory). A V8 heap setting, so only a start-up flag sets it.
export const SERVER_NODE_FLAGS = Object.freeze(['--max-semi-space-size=2']);
