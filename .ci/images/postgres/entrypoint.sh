#!/bin/sh
# As the official image does on an empty data folder: initdb with POSTGRES_USER as the superuser and
# POSTGRES_PASSWORD, create POSTGRES_DB, accept password logins from anywhere; then run as postgres.
set -eu
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
mkdir -p "$PGDATA" /run/postgresql
chown -R postgres:postgres "$PGDATA" /run/postgresql
chmod 700 "$PGDATA"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
  printf '%s\n' "$POSTGRES_PASSWORD" > /run/postgresql/pwfile
  chown postgres /run/postgresql/pwfile
  as_postgres initdb -D "$PGDATA" -U "$user" --pwfile=/run/postgresql/pwfile --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f /run/postgresql/pwfile
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    echo "CREATE DATABASE \"$db\" OWNER \"$user\"" | as_postgres postgres --single -D "$PGDATA" postgres >/dev/null
  fi
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups "$@" -D "$PGDATA" -c listen_addresses='*'
