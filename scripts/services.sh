#!/usr/bin/env bash
# Makes sure the PostgreSQL and Redis the tests use are reachable, starting local ones if not.
# `services.sh redis`: Redis alone (the SQLite-only tests of npm run test:fast need no PostgreSQL).
set -uo pipefail
only="${1:-}"
pg_host="${DAYBOOK_TEST_PG_HOST:-127.0.0.1}"
redis_port="${DAYBOOK_TEST_REDIS_PORT:-6379}"

pg_up() { pg_isready -q -h "$pg_host" -p 5432 2>/dev/null || (exec 3<>"/dev/tcp/$pg_host/5432") 2>/dev/null; }
redis_up() { [ "$(redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null)" = "PONG" ]; }

if [ "$only" != "redis" ] && ! pg_up; then
  echo "services: PostgreSQL is not reachable, starting it" >&2
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  fi
  for _ in $(seq 1 30); do pg_up && break; sleep 1; done
  pg_up || { echo "services: PostgreSQL is still not reachable on $pg_host:5432" >&2; exit 1; }
fi

if ! redis_up; then
  echo "services: Redis is not reachable, starting it" >&2
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$redis_port" --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
  for _ in $(seq 1 30); do redis_up && break; sleep 1; done
  redis_up || { echo "services: Redis is still not reachable on 127.0.0.1:$redis_port" >&2; exit 1; }
fi
if [ "$only" = "redis" ]; then echo "services: Redis is reachable"; else echo "services: PostgreSQL and Redis are reachable"; fi
