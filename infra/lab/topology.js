// The venue lab's network, as data: namespaces, links, addresses, the router's nftables ruleset
// and queues, the access point's toxiproxy proxies and the profiles. No I/O here: lab.js runs
// what this file describes, and tests read it without root.
//
//   scl-srv ── r-srv ┐                 scorecast, 10.18.0.2:8080
//                    scl-rtr           router: br-main 10.18.1.1 (250 Mbit/s),
//   scl-wired ─ br-main / br-guest ┘     br-guest 10.18.2.1 (150 Mbit/s, firewall, NAT :80 -> server)
//   scl-ap ──── br-main / br-guest     access point: toxiproxy on 10.18.3.1 (latency, jitter),
//   scl-wifi ── a-radio (10.18.3.0/24)   the radio link (tbf rate, nftables loss and roaming cuts)

import { labIdFrom, namespacesFor } from './instance.js';

/**
 * The copy of the lab this process works on (SCORECAST_LAB_ID, instance.js): '' for the default
 * copy, whose namespaces are scl-srv, scl-rtr, ...
 */
export const LAB_ID = labIdFrom();

/** This copy's namespaces: teardown removes exactly these. */
export const NS = namespacesFor(LAB_ID);

export const ADDR = Object.freeze({
  server: '10.18.0.2',
  routerServerSide: '10.18.0.1',
  routerMain: '10.18.1.1',
  routerGuest: '10.18.2.1',
  wiredMain: '10.18.1.10',
  wiredGuest: '10.18.2.10',
  apMain: '10.18.1.20',
  apGuest: '10.18.2.20',
  apRadio: '10.18.3.1',
  wifi: '10.18.3.10',
  serverNet: '10.18.0.0/24',
  mainNet: '10.18.1.0/24',
  guestNet: '10.18.2.0/24',
});

/** The server's port in its namespace; the guest network reaches it as port 80 on any address. */
export const SERVER_PORT = 8080;

/** Devices whose root qdisc routerQueues() sets. */
export const ROUTER_QUEUE_DEVICES = Object.freeze(['br-guest', 'br-main', 'r-srv']);

/** The seed's queues (MikroTik simple queues): guest 150 Mbit/s, main 250 Mbit/s. */
export const QUEUES = Object.freeze({ guestMbit: 150, mainMbit: 250 });

/**
 * The router's management ports, dropped from the guest network: FTP, SSH, Telnet, HTTPS
 * (WebFig), Winbox, the RouterOS API and API-SSL, SNMP (udp). Port 80 never reaches the router
 * from the guest side: it is NATed to the server first.
 */
export const MANAGEMENT_TCP = Object.freeze([21, 22, 23, 443, 8291, 8728, 8729]);
export const MANAGEMENT_UDP = Object.freeze([161]);

/**
 * One veth link: [namespace, interface] at each end; `bridge` enslaves the router's end.
 * @typedef {{ a: [string, string], b: [string, string], bridge?: string }} Link
 */

/** @type {readonly Link[]} */
export const LINKS = Object.freeze([
  { a: [NS.server, 's-rtr'], b: [NS.router, 'r-srv'] },
  { a: [NS.wired, 'w-main'], b: [NS.router, 'rm-w'], bridge: 'br-main' },
  { a: [NS.wired, 'w-guest'], b: [NS.router, 'rg-w'], bridge: 'br-guest' },
  { a: [NS.ap, 'a-main'], b: [NS.router, 'rm-a'], bridge: 'br-main' },
  { a: [NS.ap, 'a-guest'], b: [NS.router, 'rg-a'], bridge: 'br-guest' },
  { a: [NS.wifi, 'radio'], b: [NS.ap, 'a-radio'] },
]);

/** Bridges in the router namespace. */
export const BRIDGES = Object.freeze(['br-main', 'br-guest']);

/** [namespace, device, address/prefix] */
export const ADDRESSES = Object.freeze([
  [NS.server, 's-rtr', `${ADDR.server}/24`],
  [NS.router, 'r-srv', `${ADDR.routerServerSide}/24`],
  [NS.router, 'br-main', `${ADDR.routerMain}/24`],
  [NS.router, 'br-guest', `${ADDR.routerGuest}/24`],
  [NS.wired, 'w-main', `${ADDR.wiredMain}/24`],
  [NS.wired, 'w-guest', `${ADDR.wiredGuest}/24`],
  [NS.ap, 'a-main', `${ADDR.apMain}/24`],
  [NS.ap, 'a-guest', `${ADDR.apGuest}/24`],
  [NS.ap, 'a-radio', `${ADDR.apRadio}/24`],
  [NS.wifi, 'radio', `${ADDR.wifi}/24`],
]);

/**
 * [namespace, destination, gateway]. Wired clients and the access point reach the server over
 * the main network; everything else goes to the guest gateway, as a phone's connectivity check to
 * an internet address would (and is NATed to the server there). No namespace routes to the host.
 */
export const ROUTES = Object.freeze([
  [NS.server, 'default', ADDR.routerServerSide],
  [NS.wired, ADDR.serverNet, ADDR.routerMain],
  [NS.wired, 'default', ADDR.routerGuest],
  [NS.ap, ADDR.serverNet, ADDR.routerMain],
  [NS.ap, 'default', ADDR.routerGuest],
  [NS.wifi, 'default', ADDR.apRadio],
]);

/**
 * Source routing where a namespace has a leg in both networks: what leaves from its guest
 * address goes through the guest gateway (so a test can stand on either side of the firewall).
 * [namespace, source address, table]
 */
/** @type {readonly [string, string, number][]} */
export const SOURCE_RULES = Object.freeze([
  [NS.wired, ADDR.wiredGuest, 118],
  [NS.ap, ADDR.apGuest, 118],
]);

/**
 * The router's firewall, like the seed's guest bridge: DNS and HTTP allowed, management ports
 * dropped, HTTP from the guest subnet (to any address) NATed to the server, guests kept off the
 * main network. Drops are silent (no reset, no ICMP), as a MikroTik `action=drop` is.
 * Loading it replaces any earlier copy (`table`, `delete table`, then the table).
 * @returns {string} an `nft -f` script
 */
export function routerRuleset() {
  const g = '"br-guest"';
  return `table inet scl_fw
delete table inet scl_fw
table inet scl_fw {
  chain dstnat {
    type nat hook prerouting priority dstnat; policy accept;
    # Every HTTP request from the guest network lands on scorecast, whatever address it was for.
    iifname ${g} tcp dport 80 dnat ip to ${ADDR.server}:${SERVER_PORT}
  }
  chain input {
    type filter hook input priority filter; policy accept;
    ct state established,related accept
    ct state invalid drop
    iifname "lo" accept
    iifname ${g} udp dport 53 accept
    iifname ${g} tcp dport 53 accept
    iifname ${g} udp dport 67 accept
    iifname ${g} icmp type echo-request limit rate 10/second accept
    iifname ${g} tcp dport { ${MANAGEMENT_TCP.join(', ')} } counter drop
    iifname ${g} udp dport { ${MANAGEMENT_UDP.join(', ')} } counter drop
    iifname ${g} counter drop
  }
  chain forward {
    type filter hook forward priority filter; policy accept;
    ct state established,related accept
    ct state invalid drop
    iifname ${g} ip daddr ${ADDR.server} tcp dport ${SERVER_PORT} ct status dnat accept
    iifname ${g} ip daddr ${ADDR.mainNet} counter drop
    iifname ${g} counter drop
    iifname "br-main" accept
    iifname "r-srv" accept
  }
}
`;
}

/**
 * The router's queues: htb on each bridge for downloads (egress towards the clients) and on the
 * server link for uploads, split by source subnet (after NAT the source is still the guest's).
 * lab.js deletes the root qdiscs first (htb cannot be changed in place), so this is idempotent.
 * @returns {string[][]} argument lists for `tc`, run in the router namespace
 */
export function routerQueues() {
  const { guestMbit, mainMbit } = QUEUES;
  /** @param {string} dev @param {number} mbit */
  const single = (dev, mbit) => [
    ['qdisc', 'add', 'dev', dev, 'root', 'handle', '1:', 'htb', 'default', '10'],
    [
      'class',
      'replace',
      'dev',
      dev,
      'parent',
      '1:',
      'classid',
      '1:10',
      'htb',
      'rate',
      `${mbit}mbit`,
      'ceil',
      `${mbit}mbit`,
    ],
    // A bridge has no transmit queue of its own (txqueuelen 0): give the class an explicit one.
    ['qdisc', 'replace', 'dev', dev, 'parent', '1:10', 'handle', '10:', 'pfifo', 'limit', '1000'],
  ];
  return [
    ...single('br-guest', guestMbit),
    ...single('br-main', mainMbit),
    ['qdisc', 'add', 'dev', 'r-srv', 'root', 'handle', '1:', 'htb', 'default', '30'],
    [
      'class',
      'replace',
      'dev',
      'r-srv',
      'parent',
      '1:',
      'classid',
      '1:20',
      'htb',
      'rate',
      `${guestMbit}mbit`,
      'ceil',
      `${guestMbit}mbit`,
    ],
    [
      'class',
      'replace',
      'dev',
      'r-srv',
      'parent',
      '1:',
      'classid',
      '1:30',
      'htb',
      'rate',
      `${mainMbit}mbit`,
      'ceil',
      `${mainMbit}mbit`,
    ],
    ['qdisc', 'replace', 'dev', 'r-srv', 'parent', '1:20', 'handle', '20:', 'pfifo', 'limit', '1000'],
    ['qdisc', 'replace', 'dev', 'r-srv', 'parent', '1:30', 'handle', '30:', 'pfifo', 'limit', '1000'],
    [
      'filter',
      'add',
      'dev',
      'r-srv',
      'parent',
      '1:',
      'protocol',
      'ip',
      'prio',
      '1',
      'u32',
      'match',
      'ip',
      'src',
      ADDR.guestNet,
      'flowid',
      '1:20',
    ],
  ];
}

/** toxiproxy's API inside the access point namespace (its loopback, unreachable from the host). */
export const TOXIPROXY_API = 'http://127.0.0.1:8474';

/** The access point's proxies: to the server over the main network, and through the guest NAT. */
export const PROXIES = Object.freeze([
  {
    name: 'direct',
    listen: `${ADDR.apRadio}:${SERVER_PORT}`,
    upstream: `${ADDR.server}:${SERVER_PORT}`,
    enabled: true,
  },
  { name: 'guest', listen: `${ADDR.apRadio}:80`, upstream: `${ADDR.routerGuest}:80`, enabled: true },
]);

/**
 * A lab profile: which client namespace, which URL reaches the server from it, and what the WiFi
 * path does. Latency and jitter are one way, per direction (toxiproxy's latency toxic); the radio
 * rate is a tbf on both ends of the radio link (shared by every client, as airtime is); loss is
 * an nftables `numgen random` drop on the radio (TCP's retransmissions make the rest).
 * @typedef {object} Profile
 * @property {string} name
 * @property {string} ns client namespace
 * @property {string} target the server as the clients see it
 * @property {'wired' | 'wireless'} connection the seed's column
 * @property {boolean} firewall the seed's column
 * @property {{ latencyMs: number, jitterMs: number, radioMbit: number, lossPermille: number, bandwidthKBps?: number } | null} wifi
 */

/** @type {Readonly<Record<string, Profile>>} */
export const PROFILES = Object.freeze({
  wired: {
    name: 'wired',
    ns: NS.wired,
    target: `http://${ADDR.server}:${SERVER_PORT}`,
    connection: 'wired',
    firewall: false,
    wifi: null,
  },
  'wired+firewall': {
    name: 'wired+firewall',
    ns: NS.wired,
    target: `http://${ADDR.routerGuest}`,
    connection: 'wired',
    firewall: true,
    wifi: null,
  },
  // A busy 5 GHz access point: a few ms each way with as much jitter; the hAP ac's radio gives
  // a crowd of phones on the order of 200 Mbit/s of airtime between them (802.11ac, 2x2), so the
  // guest queue (150 Mbit/s) is the narrowest point, as in the seed report.
  wifi: {
    name: 'wifi',
    ns: NS.wifi,
    target: `http://${ADDR.apRadio}:${SERVER_PORT}`,
    connection: 'wireless',
    firewall: false,
    wifi: { latencyMs: 6, jitterMs: 5, radioMbit: 200, lossPermille: 0 },
  },
  'wifi+firewall': {
    name: 'wifi+firewall',
    ns: NS.wifi,
    target: `http://${ADDR.apRadio}`,
    connection: 'wireless',
    firewall: true,
    wifi: { latencyMs: 6, jitterMs: 5, radioMbit: 200, lossPermille: 0 },
  },
  // Too many phones on one radio: long and variable delays, a tenth of the airtime, 1% loss.
  'congested-wifi': {
    name: 'congested-wifi',
    ns: NS.wifi,
    target: `http://${ADDR.apRadio}`,
    connection: 'wireless',
    firewall: true,
    wifi: { latencyMs: 25, jitterMs: 20, radioMbit: 20, lossPermille: 10 },
  },
});

/** The profile names, for help texts and errors. */
export const PROFILE_NAMES = Object.freeze(Object.keys(PROFILES));

/**
 * The toxics for a profile, as toxiproxy's API takes them (one list per proxy).
 * @param {Profile} profile
 * @returns {{ name: string, type: string, stream: 'upstream' | 'downstream', toxicity: number, attributes: Record<string, number> }[]}
 */
export function toxicsFor(profile) {
  const w = profile.wifi;
  if (!w) return [];
  /** @type {{ name: string, type: string, stream: 'upstream' | 'downstream', toxicity: number, attributes: Record<string, number> }[]} */
  const out = [];
  for (const stream of /** @type {const} */ (['downstream', 'upstream'])) {
    out.push({
      name: `latency-${stream}`,
      type: 'latency',
      stream,
      toxicity: 1,
      attributes: { latency: w.latencyMs, jitter: w.jitterMs },
    });
    if (w.bandwidthKBps)
      out.push({
        name: `bandwidth-${stream}`,
        type: 'bandwidth',
        stream,
        toxicity: 1,
        attributes: { rate: w.bandwidthKBps },
      });
  }
  return out;
}

/**
 * The radio link's nftables table in the access point namespace: random loss for the profile,
 * and (`cut`) a silent drop of everything, both ways, as when a phone changes access point.
 * @param {{ lossPermille?: number, cut?: boolean }} o
 * @returns {string} an `nft -f` script
 */
export function radioRuleset({ lossPermille = 0, cut = false }) {
  /** @type {string[]} */
  const rules = [];
  if (cut) rules.push('drop');
  else if (lossPermille > 0) rules.push(`numgen random mod 1000 < ${lossPermille} drop`);
  /** @param {string} hook @param {string} dir */
  const body = (hook, dir) => `  chain ${hook} {
    type filter hook ${hook} priority -300; policy accept;
${rules.map((r) => `    ${dir} "a-radio" ${r}`).join('\n')}
  }`;
  return `table inet scl_radio
delete table inet scl_radio
table inet scl_radio {
${body('prerouting', 'iifname')}
${body('output', 'oifname')}
}
`;
}

/**
 * tbf on both ends of the radio link (downloads leave a-radio, uploads leave radio).
 * @param {number} mbit
 * @returns {[string, string[]][]} [namespace, tc arguments]
 */
export function radioQueues(mbit) {
  // burst: at least rate/HZ (250) and a few full-size packets; 64 KiB covers up to ~500 Mbit/s.
  /** @param {string} dev */
  const tbf = (dev) => [
    'qdisc',
    'replace',
    'dev',
    dev,
    'root',
    'tbf',
    'rate',
    `${mbit}mbit`,
    'burst',
    '64kb',
    'latency',
    '50ms',
  ];
  return [
    [NS.ap, tbf('a-radio')],
    [NS.wifi, tbf('radio')],
  ];
}
