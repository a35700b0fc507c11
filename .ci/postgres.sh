# Throwaway PostgreSQL on 127.0.0.1 for tests and benchmarks; source this file, then
#   pg_start [PORT] -> exports DATABASE_URL for a fresh server with a CREATEDB role (on a free
#                      port unless PORT is given)
#   pg_down [MODE]  -> stops it, keeping its data (an outage); MODE fast (default: open
#                      transactions roll back) or immediate (as in a crash)
#   pg_up           -> starts it again on the same port with the same data
#   pg_stop         -> stops it and removes its folder
# Debian's postgresql package provides the binaries; nothing runs on the default port.

pg_bin() {
  local initdb
  initdb=$(ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1)
  [ -n "$initdb" ] || { echo "PostgreSQL is not installed (Debian package postgresql)" >&2; return 1; }
  dirname "$initdb"
}

# Run a PostgreSQL binary as the postgres user from a folder it may enter.
_pg_as_postgres() {
  (cd / && runuser -u postgres -- "$@")
}

_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

pg_start() {
  local port=${1:-$(_free_port)}
  PG_BIN=$(pg_bin) || return 1
  PG_DIR=$(mktemp -d /tmp/daleel-pg.XXXXXX)
  PG_PORT=$port
  export PG_DIR PG_BIN PG_PORT
  chown postgres "$PG_DIR"
  _pg_as_postgres "$PG_BIN/initdb" -D "$PG_DIR/data" --auth=trust --encoding=UTF8 \
    --locale=C.UTF-8 >/dev/null || return 1
  pg_up || return 1
  # Two -c: psql sends one string as one transaction, and CREATE DATABASE refuses that.
  _pg_as_postgres "$PG_BIN/psql" -h 127.0.0.1 -p "$port" -U postgres -q -v ON_ERROR_STOP=1 \
    -c "CREATE ROLE daleel LOGIN CREATEDB" -c "CREATE DATABASE daleel OWNER daleel" >/dev/null \
    || return 1
  export DATABASE_URL="postgres://daleel@127.0.0.1:$port/daleel"
}

pg_up() {
  _pg_as_postgres "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DIR -c max_connections=200 -c fsync=off" \
    start >/dev/null || { cat "$PG_DIR/log" >&2; return 1; }
}

pg_down() {
  _pg_as_postgres "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m "${1:-fast}" -w stop >/dev/null
}

pg_stop() {
  [ -n "${PG_DIR:-}" ] || return 0
  if [ -n "${PG_BIN:-}" ]; then
    _pg_as_postgres "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast stop >/dev/null 2>&1 || true
  fi
  rm -rf "$PG_DIR"
  unset PG_DIR PG_PORT DATABASE_URL
}
