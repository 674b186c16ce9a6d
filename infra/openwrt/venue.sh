#!/bin/sh
# scorecast venue router on OpenWrt (23.05 or later: firewall4, which writes nftables): the seed
# report's router setup as infra/routeros/venue.rsc has it for MikroTik, and as infra/lab/
# reproduces it: a guest bridge for the audience, a firewall that lets guests reach DNS and
# scorecast only, every HTTP request from the guest network NATed to scorecast (the phones'
# connectivity checks included: server/http/captive-portal.js answers them), and queues of 150 Mbit/s
# (guest) and 250 Mbit/s (main) with SQM.
#
# Run it on the router as root: `sh venue.sh` (copy it with scp first). Every section is named,
# so running it again sets the same values instead of adding copies. Needs the packages
# sqm-scripts and kmod-sched-cake for the queues (`opkg install sqm-scripts kmod-sched-cake`).
# Change these values first (unlike a RouterOS import, a shell script keeps its variables):

# The scorecast server's address on the main network (give it a static lease).
SERVER=192.168.1.10
# The port scorecast answers plain HTTP on: PORT, or --http-port when it serves HTTPS.
PORT=8080
# The venue name phones open over HTTPS, whose certificate was obtained beforehand
# (doc/venue-https.md), e.g. score.example.org; empty: plain HTTP only.
VENUE_NAME=
# The port scorecast serves HTTPS on (PORT with --cert and --key); phones open 443, sent there.
HTTPS_PORT=8443
# The router's address on the guest network and its mask: a /22, room for 1,022 phones.
GUEST_ADDR=10.20.0.1
GUEST_MASK=255.255.252.0
# The audience's WiFi name.
SSID=Concert

# Stop at the first command that fails, so a half-applied setup is noticed; nothing is committed
# before the end.
set -e

# --- the guest network -------------------------------------------------------------------------
# A bridge of its own: the audience never shares a broadcast domain with the main network (br-lan).
uci set network.guest_dev=device
uci set network.guest_dev.type='bridge'
uci set network.guest_dev.name='br-guest'
# The router's address on the guest bridge: the phones' gateway and DNS server.
uci set network.guest=interface
uci set network.guest.proto='static'
uci set network.guest.device='br-guest'
uci set network.guest.ipaddr="$GUEST_ADDR"
uci set network.guest.netmask="$GUEST_MASK"

# --- WiFi --------------------------------------------------------------------------------------
# A virtual access point on the 5 GHz radio (radio1 on most dual-band routers), no password so a
# QR code is enough to join; isolate keeps phones from talking to each other (RouterOS:
# default-forwarding=no).
uci set wireless.guest5=wifi-iface
uci set wireless.guest5.device='radio1'
uci set wireless.guest5.mode='ap'
uci set wireless.guest5.network='guest'
uci set wireless.guest5.ssid="$SSID"
uci set wireless.guest5.encryption='none'
uci set wireless.guest5.isolate='1'
# The same on the 2.4 GHz radio for older phones.
uci set wireless.guest24=wifi-iface
uci set wireless.guest24.device='radio0'
uci set wireless.guest24.mode='ap'
uci set wireless.guest24.network='guest'
uci set wireless.guest24.ssid="$SSID"
uci set wireless.guest24.encryption='none'
uci set wireless.guest24.isolate='1'

# --- DHCP and DNS (dnsmasq) --------------------------------------------------------------------
# Addresses handed to phones: .10 onwards, 1,013 of them; 2 h leases outlast a concert with its
# interval. dnsmasq gives the router's own address as gateway and DNS server.
uci set dhcp.guest=dhcp
uci set dhcp.guest.interface='guest'
uci set dhcp.guest.start='10'
uci set dhcp.guest.limit='1013'
uci set dhcp.guest.leasetime='2h'
# A name for the score that works without internet: http://score.lan/ on the QR code (the guest
# firewall NATs it to the server like every HTTP request). Removed first, so it is listed once.
uci -q del_list "dhcp.@dnsmasq[0].address=/score.lan/$GUEST_ADDR" || true
uci add_list "dhcp.@dnsmasq[0].address=/score.lan/$GUEST_ADDR"

# --- firewall: the guest zone -------------------------------------------------------------------
# What reaches the router from guests is dropped unless a rule below accepts it (RouterOS: the
# last input rule), what passes through it too (the last forward rule); drops are silent, so a scan
# learns nothing. Replies to accepted connections are let through by firewall4 itself. No
# forwarding from this zone: guests reach neither the main network nor the internet (a venue often
# has none; a `forwarding` section from guest to wan would give them one).
uci set firewall.guest=zone
uci set firewall.guest.name='guest'
uci set firewall.guest.network='guest'
uci set firewall.guest.input='DROP'
uci set firewall.guest.output='ACCEPT'
uci set firewall.guest.forward='DROP'
# DNS from guests, over UDP and TCP.
uci set firewall.guest_dns=rule
uci set firewall.guest_dns.name='scorecast: guest DNS'
uci set firewall.guest_dns.src='guest'
uci set firewall.guest_dns.proto='tcp udp'
uci set firewall.guest_dns.dest_port='53'
uci set firewall.guest_dns.target='ACCEPT'
# DHCP from guests (a phone asking for an address has none yet).
uci set firewall.guest_dhcp=rule
uci set firewall.guest_dhcp.name='scorecast: guest DHCP'
uci set firewall.guest_dhcp.src='guest'
uci set firewall.guest_dhcp.proto='udp'
uci set firewall.guest_dhcp.dest_port='67'
uci set firewall.guest_dhcp.target='ACCEPT'
# Ping, rate-limited, so a phone can tell the gateway is there.
uci set firewall.guest_ping=rule
uci set firewall.guest_ping.name='scorecast: guest ping'
uci set firewall.guest_ping.src='guest'
uci set firewall.guest_ping.proto='icmp'
uci set firewall.guest_ping.icmp_type='echo-request'
uci set firewall.guest_ping.limit='10/sec'
uci set firewall.guest_ping.target='ACCEPT'
# The management ports (FTP, SSH, Telnet, LuCI over HTTPS, and those a MikroTik would have: Winbox,
# API, API-SSL; SNMP), dropped by name so the rule's counter shows scans. The zone's policy drops
# them anyway; port 80 never gets here from a guest: it is NATed to scorecast first.
uci set firewall.guest_mgmt=rule
uci set firewall.guest_mgmt.name='scorecast: guest management ports'
uci set firewall.guest_mgmt.src='guest'
uci set firewall.guest_mgmt.proto='tcp'
uci set firewall.guest_mgmt.dest_port='21 22 23 443 8291 8728 8729'
uci set firewall.guest_mgmt.target='DROP'
uci set firewall.guest_snmp=rule
uci set firewall.guest_snmp.name='scorecast: guest SNMP'
uci set firewall.guest_snmp.src='guest'
uci set firewall.guest_snmp.proto='udp'
uci set firewall.guest_snmp.dest_port='161'
uci set firewall.guest_snmp.target='DROP'

# --- NAT: every HTTP request from a guest lands on scorecast ----------------------------------
# Whatever address a phone asks for on port 80 (score.lan, the router, connectivitycheck.gstatic.com),
# the router sends it to scorecast, which serves the audience page and the captive-portal answers.
# firewall4 accepts the connections a redirect made in the guest zone's forward chain
# (`ct status dnat accept`): guests reach the server only this way (RouterOS:
# connection-nat-state=dstnat), never on its own port, nor anything else on the main network.
uci set firewall.guest_http=redirect
uci set firewall.guest_http.name='scorecast: guest HTTP to the server'
uci set firewall.guest_http.src='guest'
uci set firewall.guest_http.proto='tcp'
uci set firewall.guest_http.src_dport='80'
uci set firewall.guest_http.dest='lan'
uci set firewall.guest_http.dest_ip="$SERVER"
uci set firewall.guest_http.dest_port="$PORT"
uci set firewall.guest_http.target='DNAT'
# Hairpin NAT is for the main network reaching its own port forwards; the guests need none.
uci set firewall.guest_http.reflection='0'

# --- HTTPS under the venue name (doc/venue-https.md) ---------------------------------------------
# The venue name resolves to the server on the guest network, with or without internet; the
# router forwards HTTPS to the server's address to scorecast's HTTPS port (guests reach the server
# only through a redirect, as for HTTP). Each removed first, so it is there once.
if [ -n "$VENUE_NAME" ]; then
  uci -q del_list "dhcp.@dnsmasq[0].address=/$VENUE_NAME/$SERVER" || true
  uci add_list "dhcp.@dnsmasq[0].address=/$VENUE_NAME/$SERVER"
  uci set firewall.guest_https=redirect
  uci set firewall.guest_https.name='scorecast: guest HTTPS to the server'
  uci set firewall.guest_https.src='guest'
  uci set firewall.guest_https.proto='tcp'
  uci set firewall.guest_https.src_dip="$SERVER"
  uci set firewall.guest_https.src_dport='443'
  uci set firewall.guest_https.dest='lan'
  uci set firewall.guest_https.dest_ip="$SERVER"
  uci set firewall.guest_https.dest_port="$HTTPS_PORT"
  uci set firewall.guest_https.target='DNAT'
  uci set firewall.guest_https.reflection='0'
else
  # Plain HTTP only: no forward left from an earlier run with a venue name.
  uci -q delete firewall.guest_https || true
fi

# --- queues: the seed report's limits, with SQM (cake) ------------------------------------------
# The whole guest network shares 150 Mbit/s each way: a crowd loading pages cannot starve the
# main network (musicians' tablets, the conductor). On a LAN-side interface SQM's "download" is
# what leaves towards the phones; both are the same here. cake also keeps the queue short
# (tbf/htb in the lab, which has no cake).
uci set sqm.guest=queue
uci set sqm.guest.interface='br-guest'
uci set sqm.guest.download='150000'
uci set sqm.guest.upload='150000'
uci set sqm.guest.qdisc='cake'
uci set sqm.guest.script='piece_of_cake.qos'
uci set sqm.guest.linklayer='none'
uci set sqm.guest.enabled='1'
# The main network (br-lan) 250 Mbit/s each way.
uci set sqm.main=queue
uci set sqm.main.interface='br-lan'
uci set sqm.main.download='250000'
uci set sqm.main.upload='250000'
uci set sqm.main.qdisc='cake'
uci set sqm.main.script='piece_of_cake.qos'
uci set sqm.main.linklayer='none'
uci set sqm.main.enabled='1'

# --- apply ---------------------------------------------------------------------------------------
# Write everything at once, then restart what reads it.
uci commit
# The new bridge and its address.
service network reload
# The guest access points.
wifi reload
# DHCP and DNS on the guest network.
service dnsmasq restart
# firewall4 turns the zone, rules and redirect into nftables (`nft list ruleset` shows them).
service firewall restart
# The queues.
service sqm restart
