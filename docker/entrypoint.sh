#!/bin/sh
# Container entrypoint: check the settings, then exec relate-server (so it is PID 1 and receives
# SIGTERM itself). On the first start (an empty data directory) RELATE_PASSWORD is required: the server
# creates user neo4j with it. Arguments starting with '-' are passed on to relate-server; any other
# command runs as is (`docker run relate:local relate relate://host:7688 ...`).
set -eu

case "${1:-}" in
    "" | -*) ;;
    *) exec "$@" ;;
esac

fail() {
    echo "relate-entrypoint: $*" >&2
    exit 64     # EX_USAGE: a configuration error, not a crash
}

: "${RELATE_DATA:=/data}"
: "${RELATE_LISTEN:=0.0.0.0:7688}"
: "${RELATE_HTTP_LISTEN=0.0.0.0:7474}"     # set it empty to turn HTTP off
: "${RELATE_LOG_FORMAT:=json}"
: "${RELATE_AUTH:=true}"

check_address() {   # name value: host:port, the port all digits ([::1]:7688 is fine)
    case "$2" in
        *:*) ;;
        *) fail "$1 must be host:port, not '$2'" ;;
    esac
    case "${2##*:}" in
        "" | *[!0-9]*) fail "$1 must be host:port, not '$2'" ;;
    esac
}
check_address RELATE_LISTEN "$RELATE_LISTEN"
[ -z "$RELATE_HTTP_LISTEN" ] || check_address RELATE_HTTP_LISTEN "$RELATE_HTTP_LISTEN"

case "$RELATE_LOG_FORMAT" in
    json | console) ;;
    *) fail "RELATE_LOG_FORMAT must be json or console, not '$RELATE_LOG_FORMAT'" ;;
esac

# Docker secrets: the password may come from a file instead of the environment.
if [ -n "${RELATE_PASSWORD_FILE:-}" ]; then
    [ -r "$RELATE_PASSWORD_FILE" ] || fail "RELATE_PASSWORD_FILE $RELATE_PASSWORD_FILE is not readable"
    RELATE_PASSWORD=$(cat "$RELATE_PASSWORD_FILE")
    export RELATE_PASSWORD
fi

mkdir -p "$RELATE_DATA" 2>/dev/null || fail "cannot create the data directory $RELATE_DATA"
[ -w "$RELATE_DATA" ] || fail "the data directory $RELATE_DATA is not writable by $(id -un) (uid $(id -u))"

auth_on=true
case "$RELATE_AUTH" in
    0 | false | no | off) auth_on=false ;;
esac
if $auth_on && [ -z "$(ls -A "$RELATE_DATA")" ]; then
    # First start: without a password nobody could ever log in.
    [ -n "${RELATE_PASSWORD:-}" ] || fail "first start: set RELATE_PASSWORD (or RELATE_PASSWORD_FILE) for user neo4j, or RELATE_AUTH=false"
    [ "${#RELATE_PASSWORD}" -ge 8 ] || fail "RELATE_PASSWORD must have at least 8 characters"
    echo "relate-entrypoint: first start in $RELATE_DATA: the server creates user neo4j" >&2
fi
# Later starts: the server ignores RELATE_PASSWORD once a user exists, so it is harmless to keep.

set -- --data "$RELATE_DATA" --listen "$RELATE_LISTEN" --log-format "$RELATE_LOG_FORMAT" "$@"
[ -z "$RELATE_HTTP_LISTEN" ] || set -- --http-listen "$RELATE_HTTP_LISTEN" "$@"
$auth_on || set -- --no-auth "$@"
exec relate-server "$@"
