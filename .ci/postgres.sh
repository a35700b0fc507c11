# Throwaway PostgreSQL on 127.0.0.1 for tests and benchmarks; source this file, then
#   pg_start PORT   -> exports DATABASE_URL for a fresh server with a CREATEDB role
#   pg_stop         -> stops it and removes its folder
# Debian's postgresql package provides the binaries; nothing runs on the default port.

pg_bin() {
  local initdb
  initdb=$(ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1)
  [ -n "$initdb" ] || { echo "PostgreSQL is not installed (Debian package postgresql)" >&2; return 1; }
  dirname "$initdb"
}

pg_start() {
  local port=${1:-54329} bin
  bin=$(pg_bin) || return 1
  PG_DIR=$(mktemp -d /tmp/daleel-pg.XXXXXX)
  chown postgres "$PG_DIR"
  runuser -u postgres -- "$bin/initdb" -D "$PG_DIR/data" --auth=trust --encoding=UTF8 \
    --locale=C.UTF-8 >/dev/null
  runuser -u postgres -- "$bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $PG_DIR -c max_connections=200 -c fsync=off" \
    start >/dev/null
  runuser -u postgres -- "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -qc \
    "CREATE ROLE daleel LOGIN CREATEDB; CREATE DATABASE daleel OWNER daleel;" >/dev/null
  export PG_DIR PG_BIN=$bin
  export DATABASE_URL="postgres://daleel@127.0.0.1:$port/daleel"
}

pg_stop() {
  [ -n "${PG_DIR:-}" ] || return 0
  runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$PG_DIR"
  unset PG_DIR DATABASE_URL
}
