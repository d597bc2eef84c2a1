#!/usr/bin/env bash
# Installs the Debian packages the app and its tests need, when missing.
# mediasoup-worker 3.8.4 comes from Debian's `experimental` suite (apt never
# installs from it unless asked by name); everything else from bookworm.
# Usage: deploy/install-system-deps.sh [worker] [chromium] [coturn] [fonts] [audio] [firewall]
set -euo pipefail

WORKER_BIN=/usr/lib/x86_64-linux-gnu/mediasoup/mediasoup-worker
want=("$@")
[ ${#want[@]} -eq 0 ] && want=(worker)

# Root runs apt directly; anyone else needs passwordless sudo.
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
  else
    need_root=1
  fi
fi
as_root() {
  if [ "${need_root:-0}" -eq 1 ]; then
    echo "Installing Debian packages needs root: run 'sudo bash deploy/install-system-deps.sh ${want[*]}' once, then npm install again." >&2
    exit 1
  fi
  $SUDO "$@"
}

updated=0
apt_update() {
  if [ "$updated" -eq 0 ]; then as_root apt-get update -qq; updated=1; fi
}

add_experimental() {
  local list=/etc/apt/sources.list.d/experimental.sources
  [ -f "$list" ] && return
  local mirror
  mirror=$(grep -hm1 '^URIs:' /etc/apt/sources.list.d/debian.sources 2>/dev/null | awk '{print $2}')
  mirror=${mirror:-http://deb.debian.org/debian}
  as_root tee "$list" >/dev/null <<SRC
Types: deb
URIs: $mirror
Suites: experimental
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  updated=0
}

for item in "${want[@]}"; do
  case "$item" in
    worker)
      # An operator may point MEDIASOUP_WORKER_BIN at a worker of their own.
      if [ -n "${MEDIASOUP_WORKER_BIN:-}" ] && [ -x "$MEDIASOUP_WORKER_BIN" ]; then continue; fi
      if [ ! -x "$WORKER_BIN" ]; then
        add_experimental
        apt_update
        as_root apt-get install -y -qq -t experimental mediasoup-worker
      fi
      ;;
    chromium)
      command -v chromium >/dev/null || { apt_update; as_root apt-get install -y -qq chromium; }
      ;;
    fonts)
      # Japanese and emoji glyphs, so screenshots of every language show real text.
      dpkg -s fonts-noto-cjk fonts-noto-color-emoji >/dev/null 2>&1 ||
        { apt_update; as_root apt-get install -y -qq fonts-noto-cjk fonts-noto-color-emoji; }
      ;;
    coturn)
      command -v turnserver >/dev/null || { apt_update; as_root apt-get install -y -qq coturn; }
      ;;
    audio)
      # Speech recordings for the browsers' fake microphones in the call tests.
      { command -v espeak-ng && command -v sox; } >/dev/null ||
        { apt_update; as_root apt-get install -y -qq espeak-ng sox; }
      ;;
    firewall)
      # The room test that cuts the media server's network drops its packets with iptables.
      command -v iptables >/dev/null || { apt_update; as_root apt-get install -y -qq iptables; }
      ;;
    *) echo "unknown item: $item" >&2; exit 2 ;;
  esac
done
