# voice-test/redis:7 — Debian's Redis 7 behaving like the official redis image for the compose file:
# `redis-server ARGS` as the command, reachable from other containers (the official entrypoint
# turns protected mode off the same way), redis-cli for the health check.
FROM voice-test/debian:bookworm
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server redis-tools \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
WORKDIR /data
USER redis
EXPOSE 6379
ENTRYPOINT ["sh", "/usr/local/bin/docker-entrypoint.sh"]
CMD ["redis-server"]
