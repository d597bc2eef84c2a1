#!/usr/bin/env bash
# Backs up a docker compose installation: the database (pg_dump through the postgres container,
# custom format) and the app's data volume (uploaded avatars, VAPID keys, ...), while it runs.
#
#   deploy/backup.sh [DIR]        run from the directory holding docker-compose.yml and .env
#
# Writes DIR/voice-backup-<UTC time>/ (DIR defaults to ./backups) with database.dump and
# app-data.tar.gz, and prints that path. Restore with deploy/restore.sh <that path>. Keep copies
# off this server: a backup on the disk it protects is no backup.
# COMPOSE overrides the compose command (default: `docker compose`, else `docker-compose`),
# e.g. COMPOSE="docker compose -p voice" for a project of another name.
set -euo pipefail

if [ -n "${COMPOSE:-}" ]; then
  read -r -a compose <<<"$COMPOSE"
elif docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
else
  compose=(docker-compose)
fi

dir=${1:-backups}/voice-backup-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$dir"
umask 077

echo "backup: database" >&2
"${compose[@]}" exec -T postgres pg_dump --username=voice --dbname=voice --format=custom \
  >"$dir/database.dump.partial"
mv "$dir/database.dump.partial" "$dir/database.dump"

echo "backup: app data volume" >&2
# A one-off container of the app image with the same volume; the running app is not touched.
"${compose[@]}" run --rm --no-deps -T --entrypoint tar app -C /app/data -czf - . \
  >"$dir/app-data.tar.gz.partial"
mv "$dir/app-data.tar.gz.partial" "$dir/app-data.tar.gz"

echo "$dir"
