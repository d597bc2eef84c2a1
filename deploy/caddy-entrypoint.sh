#!/bin/sh
# Starts Caddy with deploy/Caddyfile for the host of PUBLIC_URL. Caddy cannot take a host out of
# a URL itself, and a site address with the URL's port would make it listen on that port inside
# the container instead of 443.
set -eu

fail() {
  echo "caddy: $*" >&2
  exit 1
}

url=${PUBLIC_URL:-}
case "$url" in
  https://?*) ;;
  '') fail "PUBLIC_URL must be set in .env, e.g. https://voice.example.com" ;;
  *) fail "PUBLIC_URL must start with https:// (it is \"$url\"): browsers only allow the microphone on https pages" ;;
esac
host=${url#https://}
host=${host%%/*}
case "$host" in
  \[*\]*) host="${host%%]*}]" ;; # [IPv6] with or without a port
  *:*) host=${host%:*} ;;
esac
case "$host" in
  '' | *[!A-Za-z0-9.:\[\]-]*) fail "PUBLIC_URL has no usable host name: \"$url\"" ;;
esac

case "${CADDY_TLS:-acme}" in
  '' | acme) tls=acme ;;
  internal) tls=internal ;;
  *) fail "CADDY_TLS must be empty (public certificates) or \"internal\" (Caddy's own CA), not \"$CADDY_TLS\"" ;;
esac

# Where /rtc goes (docker-compose.yml sets it: the media-server service on the compose bridge).
[ -n "${MEDIA_UPSTREAM:-}" ] || fail "MEDIA_UPSTREAM must be set (host:port of the media server's /rtc)"

export CADDY_SITE="$host" CADDY_TLS="$tls"
exec caddy run --config /etc/caddy/Caddyfile --adapter caddyfile
