# voice-test/postgres:15 — Debian's PostgreSQL 15 behaving like the official postgres image as far
# as docker-compose.yml uses it: POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB applied when the
# data directory (/var/lib/postgresql/data) is empty, password logins from other containers,
# pg_isready, psql and pg_dump on the PATH.
FROM voice-test/debian:bookworm
# No cluster of Debian's own (/var/lib/postgresql/15/main): the entrypoint makes the one in PGDATA.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-common \
 && sed -ri 's/#(create_main_cluster) .*$/\1 = false/' /etc/postgresql-common/createcluster.conf \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql \
 && chmod 700 /var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    PGDATA=/var/lib/postgresql/data
USER postgres
VOLUME ["/var/lib/postgresql/data"]
# Fast shutdown, as the official image does.
STOPSIGNAL SIGINT
EXPOSE 5432
ENTRYPOINT ["sh", "/usr/local/bin/docker-entrypoint.sh"]
CMD ["postgres"]
