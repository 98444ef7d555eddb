#!/usr/bin/env bash
# The whole test suite: Go tests (SQLite and PostgreSQL), the Node SDK tests
# and the headless-browser test of the memory browser page.
#
# It first checks and installs what it needs (scripts/prereqs.sh: PostgreSQL
# started, pgvector, Chromium, Node.js, Go modules, npm packages), so it runs
# on a fresh Debian 12 machine by itself; when a prerequisite cannot be had it
# stops within the first minute and names the fix.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}"

bash scripts/prereqs.sh

echo "== go vet"
go vet ./...
echo "== go test"
go test -count=1 -timeout 40m ./...

for d in test/node test/browser; do
  if [ -f "$d/package.json" ]; then
    echo "== npm test ($d)"
    (cd "$d" && npm test)
  fi
done
