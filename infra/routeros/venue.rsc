# scorecast venue router: the seed report's MikroTik setup (hAP ac, RouterOS 7 with the
# "wireless" package), as infra/lab/ reproduces it: a guest bridge for the audience, a firewall
# that lets guests reach DNS and scorecast only, every HTTP request from the guest network NATed
# to scorecast (the phones' connectivity checks included: server/captive-portal.js answers them),
# and queues of 150 Mbit/s (guest) and 250 Mbit/s (main).
#
# Before importing, replace these values everywhere in this file (RouterOS does not carry :local
# variables from one line of an imported file to the next):
#   192.168.88.10   the scorecast server's address on the main network (give it a static lease)
#   8080            the port scorecast answers plain HTTP on (PORT, or --http-port with HTTPS)
#   score.example.org  the venue name on scorecast's HTTPS certificate (doc/venue-https.md)
#   8443            the port scorecast serves HTTPS on (PORT with --cert and --key)
# For plain HTTP only, delete the three lines marked "HTTPS" below.
#   10.20.0.1/22    the guest network (1,022 phones)
#   Concert         the audience's WiFi name
# Import: copy the file to the router (Files), then `/import file-name=venue.rsc`.
# Each command is idempotent only in effect: import it once on a router reset to defaults.

# --- the guest network -------------------------------------------------------------------------
# A bridge of its own: the audience never shares a broadcast domain with the main network.
/interface bridge add name=bridge-guest comment="scorecast: audience"
# A virtual access point on the 5 GHz radio (wlan2 on a hAP ac), no password so a QR code is
# enough to join; default-forwarding=no keeps phones from talking to each other.
/interface wireless add name=wlan-guest master-interface=wlan2 ssid="Concert" security-profile=default default-forwarding=no disabled=no
# The same on the 2.4 GHz radio for older phones.
/interface wireless add name=wlan-guest-24 master-interface=wlan1 ssid="Concert" security-profile=default default-forwarding=no disabled=no
# Both virtual access points join the guest bridge.
/interface bridge port add bridge=bridge-guest interface=wlan-guest
/interface bridge port add bridge=bridge-guest interface=wlan-guest-24
# The router's address on the guest network: the phones' gateway and DNS server.
/ip address add address=10.20.0.1/22 interface=bridge-guest
# Addresses handed to phones; 2 h leases outlast a concert with its interval.
/ip pool add name=pool-guest ranges=10.20.0.10-10.20.3.254
/ip dhcp-server add name=dhcp-guest interface=bridge-guest address-pool=pool-guest lease-time=2h disabled=no
# DHCP tells phones to use the router as gateway and as DNS server.
/ip dhcp-server network add address=10.20.0.0/22 gateway=10.20.0.1 dns-server=10.20.0.1
# The router answers DNS for the guests (the firewall below lets port 53 in).
/ip dns set allow-remote-requests=yes
# A name for the score that works without internet: http://score.lan/ on the QR code.
/ip dns static add name=score.lan address=10.20.0.1 comment="scorecast: NATed to the server"
# HTTPS: the venue name resolves to the server itself, with or without internet; the NAT rule
# below sends its port 443 to scorecast's HTTPS port.
/ip dns static add name=score.example.org address=192.168.88.10 comment="scorecast: HTTPS venue name"

# --- firewall: what reaches the router itself (chain input) --------------------------------------
# Replies to connections the router made or accepted.
/ip firewall filter add chain=input action=accept connection-state=established,related comment="scorecast: replies"
# Packets that belong to no connection.
/ip firewall filter add chain=input action=drop connection-state=invalid comment="scorecast: invalid"
# DNS from guests, over UDP and TCP.
/ip firewall filter add chain=input action=accept in-interface=bridge-guest protocol=udp dst-port=53 comment="scorecast: guest DNS"
/ip firewall filter add chain=input action=accept in-interface=bridge-guest protocol=tcp dst-port=53 comment="scorecast: guest DNS (tcp)"
# DHCP from guests (a phone asking for an address has none yet).
/ip firewall filter add chain=input action=accept in-interface=bridge-guest protocol=udp dst-port=67 comment="scorecast: guest DHCP"
# Ping, rate-limited, so a phone can tell the gateway is there.
/ip firewall filter add chain=input action=accept in-interface=bridge-guest protocol=icmp limit=10,5:packet comment="scorecast: guest ping"
# The management ports (FTP, SSH, Telnet, WebFig over HTTPS, Winbox, API, API-SSL; SNMP): dropped
# silently, not rejected, so a scan learns nothing. Port 80 never gets here from a guest: it is
# NATed to scorecast first.
/ip firewall filter add chain=input action=drop in-interface=bridge-guest protocol=tcp dst-port=21,22,23,443,8291,8728,8729 comment="scorecast: guest management ports"
/ip firewall filter add chain=input action=drop in-interface=bridge-guest protocol=udp dst-port=161 comment="scorecast: guest SNMP"
# Anything else from a guest to the router.
/ip firewall filter add chain=input action=drop in-interface=bridge-guest comment="scorecast: guest, the rest"

# --- firewall: what passes through the router (chain forward) ----------------------------------
# Replies, and packets of no connection, as above.
/ip firewall filter add chain=forward action=accept connection-state=established,related comment="scorecast: replies"
/ip firewall filter add chain=forward action=drop connection-state=invalid comment="scorecast: invalid"
# Guests reach scorecast only through the NAT rule below (connection-nat-state=dstnat).
/ip firewall filter add chain=forward action=accept in-interface=bridge-guest connection-nat-state=dstnat dst-address=192.168.88.10 protocol=tcp dst-port=8080 comment="scorecast: guests to the server"
# HTTPS: the same for the venue name's HTTPS, after its NAT rule below.
/ip firewall filter add chain=forward action=accept in-interface=bridge-guest connection-nat-state=dstnat dst-address=192.168.88.10 protocol=tcp dst-port=8443 comment="scorecast: guests to the server, HTTPS"
# Guests reach nothing else: not the main network, not the internet (a venue often has none;
# delete this rule to give guests the internet).
/ip firewall filter add chain=forward action=drop in-interface=bridge-guest comment="scorecast: guest, the rest"

# --- NAT: every HTTP request from a guest lands on scorecast ----------------------------------
# Whatever address a phone asks for on port 80 (score.lan, the router, connectivitycheck.gstatic.com),
# the router sends it to scorecast, which serves the audience page and the captive-portal answers.
/ip firewall nat add chain=dstnat action=dst-nat in-interface=bridge-guest protocol=tcp dst-port=80 to-addresses=192.168.88.10 to-ports=8080 comment="scorecast: guest HTTP to the server"
# HTTPS: phones open https://score.example.org/ (port 443 at the server's address); scorecast
# serves HTTPS on 8443.
/ip firewall nat add chain=dstnat action=dst-nat in-interface=bridge-guest protocol=tcp dst-address=192.168.88.10 dst-port=443 to-addresses=192.168.88.10 to-ports=8443 comment="scorecast: guest HTTPS to the server"

# --- queues: the seed report's limits -----------------------------------------------------------
# The whole guest network shares 150 Mbit/s each way: a crowd loading pages cannot starve the
# main network (musicians' tablets, the conductor).
/queue simple add name=scorecast-guest target=bridge-guest max-limit=150M/150M comment="scorecast: audience"
# The main network (the default "bridge" of a hAP ac) 250 Mbit/s each way.
/queue simple add name=scorecast-main target=bridge max-limit=250M/250M comment="scorecast: main"
