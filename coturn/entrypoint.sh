#!/bin/sh
# Starts coturn with coturn/turnserver.conf plus the per-installation settings from the
# environment. They go into a private copy of the config (mode 600, in the container's /tmp) rather
# than onto the command line, where any user of the host could read the secret with `ps`.
# Extra arguments are passed on to turnserver (e.g. --verbose).
set -eu
# No globbing: TURN_ALLOWED_PEER_IPS is split on spaces below and must not expand as a pattern.
set -f

template=${TURN_CONFIG_TEMPLATE:-/etc/coturn/turnserver.conf}

fail() {
  echo "coturn: $*" >&2
  exit 1
}

# A value with a line break would smuggle extra directives into the config.
single_line() {
  case "$2" in
    *'
'*) fail "$1 must be a single line" ;;
  esac
}

# An allowed peer punches a hole in the deny list: one literal address, never a range, a name,
# loopback (coturn refuses it anyway), "this network" or multicast.
allow_peer() {
  case "$2" in
    *[!0-9A-Fa-f.:]* | '') fail "$1: \"$2\" is not a single IP address (no ranges, masks or names)" ;;
    *.*.*.* | *:*) ;;
    *) fail "$1: \"$2\" is not a single IP address" ;;
  esac
  case "$2" in
    0.* | 127.* | 22[4-9].* | 23[0-9].* | :: | ::1 | ::[Ff][Ff][Ff][Ff]:* | [Ff][Ff]*)
      fail "$1: $2 must not be reachable through the relay" ;;
  esac
  echo "allowed-peer-ip=$2"
}

[ -n "${TURN_SECRET:-}" ] || fail "TURN_SECRET must be set (the same value the API uses to mint credentials)"
[ -n "${TURN_REALM:-}" ] || fail "TURN_REALM must be set (e.g. the site's host name)"
single_line TURN_SECRET "$TURN_SECRET"
single_line TURN_REALM "$TURN_REALM"
single_line TURN_EXTERNAL_IP "${TURN_EXTERNAL_IP:-}"
single_line TURN_RELAY_IP "${TURN_RELAY_IP:-}"
single_line TURN_ALLOWED_PEER_IPS "${TURN_ALLOWED_PEER_IPS:-}"
[ -r "$template" ] || fail "cannot read $template"

# Checked before anything is written: a bad address stops the start instead of being skipped.
allowed=''
if [ -n "${TURN_RELAY_IP:-}" ]; then
  allowed="$allowed$(allow_peer TURN_RELAY_IP "$TURN_RELAY_IP")
"
fi
# The public part of "PUBLIC" or "PUBLIC/PRIVATE": what clients are told is this relay's address.
if [ -n "${TURN_EXTERNAL_IP:-}" ]; then
  allowed="$allowed$(allow_peer TURN_EXTERNAL_IP "${TURN_EXTERNAL_IP%%/*}")
"
fi
for ip in $(echo "${TURN_ALLOWED_PEER_IPS:-}" | tr ',' ' '); do
  allowed="$allowed$(allow_peer TURN_ALLOWED_PEER_IPS "$ip")
"
done

umask 077
config=$(mktemp "${TMPDIR:-/tmp}/turnserver.XXXXXX")
{
  cat "$template"
  echo
  echo "# Added by coturn/entrypoint.sh from the environment."
  echo "static-auth-secret=$TURN_SECRET"
  echo "realm=$TURN_REALM"
  if [ -n "${TURN_EXTERNAL_IP:-}" ]; then
    echo "external-ip=$TURN_EXTERNAL_IP"
  fi
  if [ -n "${TURN_RELAY_IP:-}" ]; then
    echo "relay-ip=$TURN_RELAY_IP"
  fi
  # This relay's own address (two browsers that both relay here reach each other through it)
  # and the media servers' addresses, each as a single allowed peer.
  printf '%s' "$allowed"
} >"$config"

exec turnserver -c "$config" "$@"
