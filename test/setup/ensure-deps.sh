#!/usr/bin/env bash
# Installs what the test suite needs when it is missing: Debian's Chromium for Playwright
# (Playwright cannot download its own browser here), redis-server and nginx for the cluster
# tests (test/server/cluster/*.test.js; README, "Several machines"), and WebKitGTK's WebDriver,
# Firefox ESR, Xvfb, PulseAudio (a sound card for them: a null sink) and NSS's certutil (a
# Firefox profile that trusts the test CA) for the other engines (test/engines/), PulseAudio's
# tools for the audio onset lab (infra/audio-lab/), and Poppler's pdfinfo and pdftoppm for PDF
# pages (test/server/package/load-pdf.test.js), and ffmpeg for the video parts' test files
# (test/server/package/load-video.test.js, bench/video-part.js), and librsvg's rsvg-convert for
# the PDF benchmark. Run by `npm test`; idempotent and
# quiet: apt-get runs only when something is missing.
set -euo pipefail

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
# nginx is in /usr/sbin, which a user's PATH may not hold.
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx)
# WebKitWebDriver drives WebKitGTK's MiniBrowser (same package's dependency); both under Xvfb.
command -v WebKitWebDriver >/dev/null 2>&1 || need+=(webkit2gtk-driver)
command -v firefox-esr >/dev/null 2>&1 || need+=(firefox-esr)
command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
# Without an output device Firefox's AudioContext never leaves 'suspended'.
command -v pulseaudio >/dev/null 2>&1 || need+=(pulseaudio)
# NSS's certutil: the venue test's Firefox profile trusts the test CA (test/engines/venue-lab.js).
command -v certutil >/dev/null 2>&1 || need+=(libnss3-tools)
# The audio onset lab (infra/audio-lab/) records and plays with parec and pacat, asks with pactl.
command -v parec >/dev/null 2>&1 || need+=(pulseaudio-utils)
# Poppler renders a package's PDF pages (server/package/pdf/); the server needs it too.
command -v pdftoppm >/dev/null 2>&1 && command -v pdfinfo >/dev/null 2>&1 || need+=(poppler-utils)
# librsvg's rsvg-convert makes the PDF parts of the fixture tool and bench:pdf from Verovio's SVG
# (scores/tools/make-pdf-part.js, bench/pdf-pages.js), as a composer's program exports them.
command -v rsvg-convert >/dev/null 2>&1 || need+=(librsvg2-bin)
# ffmpeg encodes the video parts' test files in each container and codec (the server never runs it).
command -v ffmpeg >/dev/null 2>&1 || need+=(ffmpeg)

if [ ${#need[@]} -gt 0 ]; then
  echo "test setup: installing ${need[*]} from Debian's packages" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  # Other runs on this machine may hold dpkg's lock: wait for it rather than fail.
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${need[@]}" >/dev/null
fi
