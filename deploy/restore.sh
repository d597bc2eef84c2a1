#!/usr/bin/env bash
# Restores a backup made by deploy/backup.sh into a docker compose installation, replacing the
# database and the app's data volume entirely.
#
#   deploy/restore.sh DIR          DIR: a voice-backup-<time> directory made by deploy/backup.sh
#
# Run from the directory holding docker-compose.yml and .env (a new server: the same .env, at
# least POSTGRES_PASSWORD and JWT_SECRET, then this script). The app is stopped meanwhile and
# started again at the end; its migrations bring an older backup up to date. COMPOSE as in backup.sh.
set -euo pipefail

dir=${1:?usage: deploy/restore.sh DIR (a directory made by deploy/backup.sh)}
for file in database.dump app-data.tar.gz; do
  [ -s "$dir/$file" ] || { echo "restore: $dir/$file is missing or empty" >&2; exit 1; }
done

if [ -n "${COMPOSE:-}" ]; then
  read -r -a compose <<<"$COMPOSE"
elif docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
else
  compose=(docker-compose)
fi

echo "restore: stopping the app" >&2
"${compose[@]}" stop app
"${compose[@]}" up -d postgres
for _ in $(seq 1 60); do
  "${compose[@]}" exec -T postgres pg_isready --username=voice --dbname=voice >/dev/null 2>&1 && break
  sleep 1
done

echo "restore: database" >&2
# A fresh database rather than dropping objects one by one: nothing newer than the dump survives.
"${compose[@]}" exec -T postgres dropdb --username=voice --if-exists --force voice
"${compose[@]}" exec -T postgres createdb --username=voice --owner=voice voice
"${compose[@]}" exec -T postgres pg_restore --username=voice --dbname=voice --no-owner \
  --exit-on-error --single-transaction <"$dir/database.dump"

echo "restore: app data volume" >&2
"${compose[@]}" run --rm --no-deps -T --entrypoint sh app \
  -c 'find /app/data -mindepth 1 -delete && tar -C /app/data -xzf -' <"$dir/app-data.tar.gz"

echo "restore: starting the app" >&2
"${compose[@]}" up -d app
