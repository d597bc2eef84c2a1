# voice-test/caddy:2.6 — Debian's Caddy 2.6 laid out like the official caddy image: /usr/bin/caddy,
# config in /config and certificates and the internal CA in /data (XDG dirs), the same command.
FROM voice-test/debian:bookworm
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends caddy ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /config/caddy /data/caddy /etc/caddy \
 && test -x /usr/bin/caddy
ENV XDG_CONFIG_HOME=/config \
    XDG_DATA_HOME=/data
VOLUME ["/config", "/data"]
EXPOSE 80 443 443/udp
WORKDIR /srv
CMD ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]
