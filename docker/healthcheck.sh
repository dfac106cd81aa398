#!/bin/sh
# Container health check: GET /health on the HTTP listener when there is one, else a protocol
# handshake on the Relate port. Exit 0 healthy, 1 not.
set -eu

local_target() {    # host:port as the server binds it -> an address to reach it from inside
    port=${1##*:}
    host=${1%:*}
    case "$host" in
        "" | 0.0.0.0 | "[::]" | "::") host=127.0.0.1 ;;
    esac
    echo "$host:$port"
}

if [ -n "${RELATE_HTTP_LISTEN-0.0.0.0:7474}" ]; then
    target="http://$(local_target "${RELATE_HTTP_LISTEN-0.0.0.0:7474}")/health"
else
    target=$(local_target "${RELATE_LISTEN:-0.0.0.0:7688}")
fi
exec relate-server --check "$target"
