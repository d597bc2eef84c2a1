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

[ -n "${TURN_SECRET:-}" ] || fail "TURN_SECRET must be set (the same value the API uses to mint credentials)"
[ -n "${TURN_REALM:-}" ] || fail "TURN_REALM must be set (e.g. the site's host name)"
single_line TURN_SECRET "$TURN_SECRET"
single_line TURN_REALM "$TURN_REALM"
single_line TURN_EXTERNAL_IP "${TURN_EXTERNAL_IP:-}"
single_line TURN_ALLOWED_PEER_IPS "${TURN_ALLOWED_PEER_IPS:-}"
[ -r "$template" ] || fail "cannot read $template"

umask 077
config=$(mktemp /tmp/turnserver.XXXXXX)
{
  cat "$template"
  echo
  echo "# Added by coturn/entrypoint.sh from the environment."
  echo "static-auth-secret=$TURN_SECRET"
  echo "realm=$TURN_REALM"
  if [ -n "${TURN_EXTERNAL_IP:-}" ]; then
    echo "external-ip=$TURN_EXTERNAL_IP"
  fi
  for ip in $(echo "${TURN_ALLOWED_PEER_IPS:-}" | tr ',' ' '); do
    echo "allowed-peer-ip=$ip"
  done
} >"$config"

exec turnserver -c "$config" "$@"
