#!/usr/bin/env bash
# The whole test suite: Go tests (SQLite and PostgreSQL), the Node SDK smoke
# test and the headless-browser test of the memory browser page.
# PostgreSQL must answer at TEST_DATABASE_URL (default below) with pgvector
# installed; .ci/run prepares a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}"

go vet ./...
go test -count=1 -timeout 30m ./...

for d in test/node test/browser; do
  if [ -f "$d/package.json" ]; then
    [ -d "$d/node_modules" ] || (cd "$d" && npm ci --no-audit --no-fund --loglevel=error)
    (cd "$d" && npm test)
  fi
done
