#!/bin/sh
# One-shot schema job shared by docker-compose.yml (temporal-admin-tools, Alpine busybox sh: keep this
# POSIX) and `npm run start:cluster`: creates the temporal and temporal_visibility databases and
# applies or upgrades their schemas with the SQL tool and the postgres12 plugin.
#
# Idempotent: "already exists" from `create` is tolerated, `setup-schema -v 0.0` is a no-op on a
# versioned schema, and `update-schema` only applies versions newer than the recorded one.
#
# Environment:
#   POSTGRES_SEEDS, DB_PORT, POSTGRES_USER   where PostgreSQL is (DB_PORT default 5432)
#   SQL_PASSWORD                             the user's password (read by the SQL tool itself)
#   DBNAME, VISIBILITY_DBNAME                default temporal, temporal_visibility
#   SQL_TOOL                                 default temporal-sql-tool (on PATH in admin-tools)
#   SCHEMA_DIR                               default /etc/temporal/schema (admin-tools' layout)
set -eu

SQL_TOOL="${SQL_TOOL:-temporal-sql-tool}"
SCHEMA_DIR="${SCHEMA_DIR:-/etc/temporal/schema}"
DB_PORT="${DB_PORT:-5432}"

sql_tool() {
  "${SQL_TOOL}" --plugin postgres12 --ep "${POSTGRES_SEEDS}" -u "${POSTGRES_USER}" -p "${DB_PORT}" "$@"
}

setup_db() {
  db="$1"
  versioned_dir="$2"
  echo "[schema] creating database ${db}"
  if out="$(sql_tool --db "${db}" create 2>&1)"; then
    echo "[schema] database ${db} created"
  else
    case "${out}" in
      *"already exists"*) echo "[schema] database ${db} already exists" ;;
      *) echo "${out}" >&2; exit 1 ;;
    esac
  fi
  sql_tool --db "${db}" setup-schema -v 0.0
  sql_tool --db "${db}" update-schema -d "${versioned_dir}"
  echo "[schema] database ${db} is up to date"
}

setup_db "${DBNAME:-temporal}" "${SCHEMA_DIR}/postgresql/v12/temporal/versioned"
setup_db "${VISIBILITY_DBNAME:-temporal_visibility}" "${SCHEMA_DIR}/postgresql/v12/visibility/versioned"
