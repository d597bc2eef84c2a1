# voice-test/prometheus:2.42 — Debian's Prometheus 2.42 laid out like the official prom/prometheus
# image: the binary as the entrypoint (compose passes only flags), config in /etc/prometheus,
# data in /prometheus, run as nobody.
FROM voice-test/debian:bookworm
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /prometheus && chown nobody:nogroup /prometheus \
 && test -x /usr/bin/prometheus
USER nobody
VOLUME ["/prometheus"]
WORKDIR /prometheus
EXPOSE 9090
ENTRYPOINT ["/usr/bin/prometheus"]
CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]
