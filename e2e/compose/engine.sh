#!/usr/bin/env bash
# Prepares what the compose test needs on this machine, each part only when missing:
#   - Debian's docker.io, docker-compose and debootstrap (apt-get);
#   - a running dockerd (started with --iptables=false --ip-masq=false: no registry and no NAT
#     here; its pid goes to $STATE_DIR/dockerd.pid so the test stops only a daemon it started);
#   - the test images, cached between runs: voice-test/debian:bookworm (debootstrap), then
#     voice-test/node:20 (this machine's Node), voice-test/postgres:15, voice-test/redis:7,
#     voice-test/coturn:4.6, voice-test/caddy:2.6 and voice-test/prometheus:2.42 from Debian's
#     packages (images/*.Dockerfile).
# None is tagged as an official image. Usage: e2e/compose/engine.sh [--rebuild]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
CACHE_DIR=${VOICE_TEST_CACHE:-/var/cache/voice-test}
STATE_DIR=${VOICE_TEST_STATE:-$CACHE_DIR/state}
mkdir -p "$CACHE_DIR" "$STATE_DIR"
log() { echo "[engine $(date +%H:%M:%S)] $*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
  echo "The compose test runs dockerd and debootstrap: run it as root." >&2
  exit 1
fi

missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v docker-compose >/dev/null || missing+=(docker-compose)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Debian's client matches Debian's daemon; another `docker` earlier on the PATH may not.
DOCKER=/usr/bin/docker
[ -x "$DOCKER" ] || DOCKER=$(command -v docker)

if ! "$DOCKER" info >/dev/null 2>&1; then
  log "starting dockerd"
  setsid dockerd --iptables=false --ip-masq=false >"$STATE_DIR/dockerd.log" 2>&1 </dev/null &
  echo $! >"$STATE_DIR/dockerd.pid"
  for _ in $(seq 1 60); do
    "$DOCKER" info >/dev/null 2>&1 && break
    sleep 1
  done
  "$DOCKER" info >/dev/null 2>&1 || { tail -20 "$STATE_DIR/dockerd.log" >&2; exit 1; }
fi

has_image() { [ "${1:-}" != --rebuild ] && "$DOCKER" image inspect "$2" >/dev/null 2>&1; }
rebuild=${1:-}

# The base: a minimal bookworm from the mirror this machine's apt already uses.
if ! has_image "$rebuild" voice-test/debian:bookworm; then
  mirror=$(grep -hm1 '^URIs:' /etc/apt/sources.list.d/debian.sources 2>/dev/null | awk '{print $2}')
  mirror=${mirror:-$(grep -hm1 '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}')}
  mirror=${mirror:-http://deb.debian.org/debian}
  rootfs="$CACHE_DIR/rootfs"
  rm -rf "$rootfs"
  log "debootstrap bookworm from $mirror"
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$STATE_DIR/debootstrap.log" 2>&1 ||
    { tail -20 "$STATE_DIR/debootstrap.log" >&2; exit 1; }
  # The machine's own apt sources (updates and security included), instead of debootstrap's one line.
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    cp /etc/apt/sources.list.d/debian.sources "$rootfs/etc/apt/sources.list.d/debian.sources"
    rm -f "$rootfs/etc/apt/sources.list"
  fi
  # And its apt settings (proxies, Check-Valid-Until for snapshot mirrors): apt inside the builds
  # must reach Debian the way this machine does.
  for conf in /etc/apt/apt.conf.d/*; do
    if [ -f "$conf" ] && grep -q '^[[:space:]]*Acquire::' "$conf"; then
      cp "$conf" "$rootfs/etc/apt/apt.conf.d/"
    fi
  done
  # Smaller images: no docs, no apt caches left in layers.
  printf 'path-exclude /usr/share/doc/*\npath-exclude /usr/share/man/*\npath-exclude /usr/share/locale/*\n' \
    >"$rootfs/etc/dpkg/dpkg.cfg.d/01-nodoc"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | "$DOCKER" import -c 'CMD ["bash"]' - voice-test/debian:bookworm >/dev/null
  rm -rf "$rootfs"
fi

# A test image is rebuilt when its Dockerfile or the scripts beside it changed since it was built
# (their digest is a label of the image), so a cached image never tests an older entrypoint.
build() {
  local name=$1 dockerfile=$2 context=$3 digest
  digest=$({
    cat "$dockerfile"
    cat "$context"/*.sh 2>/dev/null || true
  } | sha256sum | cut -c1-16)
  if has_image "$rebuild" "$name" &&
    [ "$("$DOCKER" image inspect --format '{{index .Config.Labels "voice-test.source"}}' "$name")" = "$digest" ]; then
    return
  fi
  log "building $name"
  "$DOCKER" build --network host -q --label "voice-test.source=$digest" -t "$name" -f "$dockerfile" "$context" >/dev/null
}

if ! has_image "$rebuild" voice-test/node:20; then
  ctx=$(mktemp -d)
  cp "$(readlink -f "$(command -v node)")" "$ctx/node"
  npm_cli=$(readlink -f "$(command -v npm)")
  cp -r "${npm_cli%/bin/npm-cli.js}" "$ctx/npm"
  # The certificates this machine's Node trusts (a TLS-inspecting proxy's CA, where there is one),
  # so npm inside the app's build reaches the registry as npm here does.
  ca=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}
  if [ -f "$ca" ]; then cp "$ca" "$ctx/ca.crt"; else : >"$ctx/ca.crt"; fi
  build voice-test/node:20 "$here/images/node.Dockerfile" "$ctx"
  rm -rf "$ctx"
fi
build voice-test/postgres:15 "$here/images/postgres.Dockerfile" "$here/images"
build voice-test/redis:7 "$here/images/redis.Dockerfile" "$here/images"
build voice-test/coturn:4.6 "$here/images/coturn.Dockerfile" "$here/images"
build voice-test/caddy:2.6 "$here/images/caddy.Dockerfile" "$here/images"
build voice-test/prometheus:2.42 "$here/images/prometheus.Dockerfile" "$here/images"
log "engine and test images ready"
