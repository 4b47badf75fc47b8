#!/usr/bin/env bash
# A throwaway PostgreSQL server for the engine tests: Debian's packages, a fresh data folder,
# listening on 127.0.0.1 only, at a non-default port.
#   scripts/ci/postgres.sh start   install (if missing), initdb, start; prints the env to export
#   scripts/ci/postgres.sh stop    stop the server and delete its data folder
set -euo pipefail

PORT="${RUNLENS_PG_PORT:-54329}"
STATE_DIR="${RUNLENS_PG_STATE_DIR:-/tmp/runlens-postgres-$PORT}"
DATA_DIR="$STATE_DIR/data"
PG_USER="${RUNLENS_PG_OS_USER:-postgres}"

pg_bin() {
    local dir
    dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
    if [ -z "$dir" ]; then
        echo "runlens: PostgreSQL server binaries not found: install Debian's postgresql package" >&2
        exit 2
    fi
    echo "$dir"
}

as_pg_user() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u "$PG_USER" -- "$@"
    else
        "$@"
    fi
}

start() {
    if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ]; then
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >/dev/null
        else
            echo "runlens: PostgreSQL is not installed: sudo apt-get install postgresql" >&2
            exit 2
        fi
    fi
    local bin
    bin="$(pg_bin)"
    stop_quietly
    mkdir -p "$STATE_DIR"
    if [ "$(id -u)" = 0 ]; then chown "$PG_USER" "$STATE_DIR"; fi
    as_pg_user "$bin/initdb" --pgdata="$DATA_DIR" --username=runlens --auth=trust \
        --encoding=UTF8 --locale=C.UTF-8 >"$STATE_DIR/initdb.log" 2>&1
    as_pg_user "$bin/pg_ctl" --pgdata="$DATA_DIR" --log="$STATE_DIR/server.log" --wait \
        --options="-c listen_addresses=127.0.0.1 -c port=$PORT -c unix_socket_directories=$STATE_DIR -c timezone=UTC -c fsync=off -c full_page_writes=off -c synchronous_commit=off" \
        start >/dev/null
    as_pg_user "$bin/createdb" --host=127.0.0.1 --port="$PORT" --username=runlens runlens
    echo "runlens: PostgreSQL listening on 127.0.0.1:$PORT (data in $DATA_DIR)" >&2
}

stop_quietly() {
    local bin
    bin="$(pg_bin)"
    if [ -f "$DATA_DIR/postmaster.pid" ]; then
        as_pg_user "$bin/pg_ctl" --pgdata="$DATA_DIR" --mode=immediate --wait stop >/dev/null 2>&1 || true
    fi
    rm -rf "$STATE_DIR"
}

case "${1:-}" in
    start) start ;;
    stop) stop_quietly ;;
    *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
