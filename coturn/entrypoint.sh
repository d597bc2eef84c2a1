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

# An IPv4 octet or an IPv6 group as a number, refusing what the shell would misread (empty, too
# long, or a leading zero that $(( )) takes for octal).
octet() {
  case "$1" in
    '' | *[!0-9]* | 0?* | ????*) return 1 ;;
  esac
  [ "$1" -le 255 ] || return 1
  echo "$1"
}
group() {
  case "$1" in
    '' | *[!0-9A-Fa-f]* | ?????*) return 1 ;;
  esac
  echo $((0x$1))
}

# A denied peer: the deployment's own addresses the relay must never reach, as a single address or
# a CIDR block, written as the start-end range coturn reads (it knows no masks: it would take
# "10.0.0.0/8" for a host name, log a wrong address and deny nothing). A whole prefix is also
# what coturn 4.6's byte-by-byte comparison of IPv6 bounds reads as written (see turnserver.conf).
deny_peer() {
  name=$1
  entry=$2
  address=${entry%/*}
  length=${entry#"$address"}
  case "$length" in
    '' | /[0-9] | /[1-9][0-9] | /1[0-2][0-9]) length=${length#/} ;;
    *) fail "$name: \"$entry\" has no valid prefix length" ;;
  esac
  case "$address" in
    *[!0-9A-Fa-f.:]* | '') fail "$name: \"$entry\" is not an IP address or CIDR block (no names or ranges)" ;;
    *:*.*) fail "$name: \"$entry\": write IPv6 addresses in hex only" ;;
    *:*) deny_ipv6 ;;
    *.*.*.*) deny_ipv4 ;;
    *) fail "$name: \"$entry\" is not an IP address or CIDR block" ;;
  esac
}

deny_ipv4() {
  length=${length:-32}
  [ "$length" -le 32 ] || fail "$name: \"$entry\": an IPv4 prefix is at most 32 bits"
  value=0
  rest=$address.
  for _ in 1 2 3 4; do
    part=$(octet "${rest%%.*}") || fail "$name: \"$entry\" is not an IPv4 address"
    value=$((value * 256 + part))
    rest=${rest#*.}
  done
  [ -z "$rest" ] || fail "$name: \"$entry\" is not an IPv4 address"
  size=$((1 << (32 - length)))
  start=$((value - value % size))
  end=$((start + size - 1))
  # coturn reads a range from 0.0.0.0 as having no lower bound (0.0.0.0 alone: every peer of
  # both families); 0.0.0.0/8 is denied already.
  [ "$start" -ne 0 ] || fail "$name: \"$entry\" starts at 0.0.0.0, which coturn reads as no bound (0.0.0.0/8 is denied already)"
  print_range "$(ipv4_text "$start")" "$(ipv4_text "$end")"
}

ipv4_text() {
  echo "$(($1 >> 24 & 255)).$(($1 >> 16 & 255)).$(($1 >> 8 & 255)).$(($1 & 255))"
}

deny_ipv6() {
  length=${length:-128}
  [ "$length" -le 128 ] || fail "$name: \"$entry\": an IPv6 prefix is at most 128 bits"
  # The eight groups, with "::" expanded to the zero groups it stands for.
  case "$address" in
    *::*::* | *:::*) fail "$name: \"$entry\" is not an IPv6 address" ;;
    *::*) head=${address%%::*} tail=${address#*::} ;;
    *) head=$address tail='' ;;
  esac
  # No empty group at either end of the parts or between two colons (":1::", "1::2:").
  for part in "$head" "$tail"; do
    case ":$part:" in
      *::*) [ -z "$part" ] || fail "$name: \"$entry\" is not an IPv6 address" ;;
    esac
  done
  head=$(echo "$head" | tr ':' ' ')
  tail=$(echo "$tail" | tr ':' ' ')
  given=0
  for _ in $head $tail; do given=$((given + 1)); done
  groups=$head
  case "$address" in
    *::*)
      [ "$given" -le 7 ] || fail "$name: \"$entry\" is not an IPv6 address"
      while [ "$given" -lt 8 ]; do
        groups="$groups 0"
        given=$((given + 1))
      done
      groups="$groups $tail"
      ;;
    *) [ "$given" -eq 8 ] || fail "$name: \"$entry\" is not an IPv6 address" ;;
  esac
  start='' end='' bits=$length zero=1
  for g in $groups; do
    value=$(group "$g") || fail "$name: \"$entry\" is not an IPv6 address"
    keep=$((bits > 16 ? 16 : bits))
    size=$((1 << (16 - keep)))
    low=$((value - value % size))
    [ "$low" -eq 0 ] || zero=0
    start="$start:$(printf '%x' "$low")"
    end="$end:$(printf '%x' $((low + size - 1)))"
    bits=$((bits > 16 ? bits - 16 : 0))
  done
  # coturn reads a range from :: as having no lower bound, and sorts every IPv4 address below
  # IPv6: it would refuse every IPv4 peer. :: and ::/96 are denied already.
  [ "$zero" -eq 0 ] || fail "$name: \"$entry\" starts at ::, which coturn reads as no bound (it would refuse every IPv4 peer)"
  print_range "${start#:}" "${end#:}"
}

print_range() {
  if [ "$1" = "$2" ]; then
    echo "denied-peer-ip=$1"
  else
    echo "denied-peer-ip=$1-$2"
  fi
}

# TURN_SECRET_FILE=/run/secrets/turn_secret (a Docker or Kubernetes secret) stands for TURN_SECRET
# set to that file's contents, trimmed as the API trims them: both must read the same secret.
secret_from=TURN_SECRET
if [ -n "${TURN_SECRET_FILE:-}" ]; then
  [ -z "${TURN_SECRET:-}" ] || fail "TURN_SECRET, TURN_SECRET_FILE: set one, not both"
  case "$TURN_SECRET_FILE" in
    /*) ;;
    *) fail "TURN_SECRET_FILE: must be an absolute path (got \"$TURN_SECRET_FILE\")" ;;
  esac
  TURN_SECRET=$(cat -- "$TURN_SECRET_FILE" 2>/dev/null) || fail "TURN_SECRET_FILE: cannot read $TURN_SECRET_FILE"
  TURN_SECRET=${TURN_SECRET#"${TURN_SECRET%%[![:space:]]*}"}
  TURN_SECRET=${TURN_SECRET%"${TURN_SECRET##*[![:space:]]}"}
  [ -n "$TURN_SECRET" ] || fail "TURN_SECRET_FILE: $TURN_SECRET_FILE is empty"
  secret_from=TURN_SECRET_FILE
fi

[ -n "${TURN_SECRET:-}" ] || fail "TURN_SECRET (or TURN_SECRET_FILE) must be set (the same value the API uses to mint credentials)"
[ -n "${TURN_REALM:-}" ] || fail "TURN_REALM must be set (e.g. the site's host name)"
single_line "$secret_from" "$TURN_SECRET"
single_line TURN_REALM "$TURN_REALM"
single_line TURN_EXTERNAL_IP "${TURN_EXTERNAL_IP:-}"
single_line TURN_RELAY_IP "${TURN_RELAY_IP:-}"
single_line TURN_ALLOWED_PEER_IPS "${TURN_ALLOWED_PEER_IPS:-}"
single_line TURN_DENIED_PEER_IPS "${TURN_DENIED_PEER_IPS:-}"
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
denied=''
for block in $(echo "${TURN_DENIED_PEER_IPS:-}" | tr ',' ' '); do
  denied="$denied$(deny_peer TURN_DENIED_PEER_IPS "$block")
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
  # The deployment's own addresses on top of the shipped deny list.
  printf '%s' "$denied"
} >"$config"

exec turnserver -c "$config" "$@"
