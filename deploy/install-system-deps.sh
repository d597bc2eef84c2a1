#!/usr/bin/env bash
# Installs the Debian packages the app and its tests need, when missing.
# mediasoup-worker 3.8.4 comes from Debian's `experimental` suite (apt never
# installs from it unless asked by name); everything else from bookworm.
# Usage: deploy/install-system-deps.sh [worker] [fast-srtp] [chromium] [coturn] [fonts] [audio] [firewall]
#
# fast-srtp: Debian builds libsrtp2 on NSS, which sets up a crypto context for every packet: a
# room of a thousand spends a third of a worker's CPU there. This rebuilds the same Debian
# source (apt-get source, with Debian's patches) on OpenSSL's libcrypto (AES-NI) into
# $FAST_SRTP_DIR, which the media server puts before the system's for its workers. A failed
# build is a warning: the workers then use Debian's library, correct and slower.
set -euo pipefail

WORKER_BIN=/usr/lib/x86_64-linux-gnu/mediasoup/mediasoup-worker
# media-server/src/config.ts (FAST_SRTP_DIR) reads the library from here.
FAST_SRTP_DIR=/usr/local/lib/voice/srtp
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

# libsrtp2, the version Debian installed, rebuilt on OpenSSL (see fast-srtp above). Apt's own
# lists are left alone: the source index goes to a directory of its own, removed afterwards.
build_fast_srtp() {
  local version source stamp=$FAST_SRTP_DIR/debian-version
  version=$(dpkg-query -W -f='${Version}' libsrtp2-1 2>/dev/null) || {
    echo "fast-srtp: libsrtp2-1 is not installed (install the worker first)" >&2
    return 1
  }
  [ -f "$FAST_SRTP_DIR/libsrtp2.so.1" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ] && return 0
  # Without root it is skipped, not an error: the worker runs on Debian's library all the same.
  if [ "${need_root:-0}" -eq 1 ]; then
    echo "fast-srtp: skipped (needs root: sudo bash deploy/install-system-deps.sh fast-srtp); the workers use Debian's libsrtp2" >&2
    return 1
  fi
  source=$(dpkg-query -W -f='${source:Package}' libsrtp2-1)
  dpkg -s gcc make libc6-dev libssl-dev dpkg-dev >/dev/null 2>&1 ||
    { apt_update; as_root apt-get install -y -qq --no-install-recommends gcc make libc6-dev libssl-dev dpkg-dev; }
  local work mirror
  work=$(mktemp -d)
  mirror=$(grep -hm1 '^URIs:' /etc/apt/sources.list.d/debian.sources 2>/dev/null | awk '{print $2}')
  mirror=${mirror:-http://deb.debian.org/debian}
  mkdir -p "$work/parts" "$work/lists/partial" "$work/cache/archives/partial"
  cat >"$work/sources.list" <<SRC
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main
SRC
  local apt_own=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=$work/parts"
    -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o "APT::Sandbox::User=root")
  # shellcheck disable=SC2016
  as_root env WORK="$work" SOURCE="$source" VERSION="$version" DIR="$FAST_SRTP_DIR" bash -c '
    set -e
    cd "$WORK"
    apt-get "$@" update -qq
    apt-get "$@" source -qq "$SOURCE=$VERSION" >/dev/null
    cd "$WORK/$SOURCE"-*/
    ./configure -q --enable-openssl --disable-pcap >/dev/null
    make -s -j"$(nproc)" shared_library >/dev/null
    install -D -m 0644 libsrtp2.so.1 "$DIR/libsrtp2.so.1"
    echo "$VERSION" >"$DIR/debian-version"
  ' fast-srtp "${apt_own[@]}" || {
    as_root rm -rf "$work"
    echo "fast-srtp: could not rebuild libsrtp2 on OpenSSL; the media server uses Debian's (slower)" >&2
    return 1
  }
  as_root rm -rf "$work"
  echo "fast-srtp: libsrtp2 $version on OpenSSL in $FAST_SRTP_DIR"
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
    fast-srtp)
      build_fast_srtp || true
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
