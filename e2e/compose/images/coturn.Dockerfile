# voice-test/coturn:4.6 — Debian's coturn 4.6 where the official coturn/coturn image has it
# (/usr/bin/turnserver), run as nobody like that image; docker-compose.yml replaces the entrypoint.
FROM voice-test/debian:bookworm
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends coturn \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/coturn && chown nobody:nogroup /var/lib/coturn \
 && test -x /usr/bin/turnserver
USER nobody:nogroup
ENTRYPOINT ["turnserver"]
