#!/usr/bin/env bash
# prereqs.sh checks, and installs where missing, everything the test suite
# needs on a Debian 12 machine: PostgreSQL answering at TEST_DATABASE_URL
# with the pgvector extension, Chromium for the browser test, Node.js with
# npm, the Go modules and the npm packages of test/node and test/browser.
#
# Idempotent and quick when everything is present (a few seconds). Installing
# needs root (apt-get, make install), as on the project's machines. When a
# prerequisite cannot be had, the script stops at once and names the fix.
#
# Environment:
#   TEST_DATABASE_URL  the PostgreSQL test database (default below)
#   CHROMIUM_PATH      the Chromium binary (default /usr/bin/chromium)
#   MEMPROXY_NO_INSTALL=1  only check; never install (prints the fix)
set -euo pipefail
cd "$(dirname "$0")/.."

export PATH="/usr/local/go/bin:$PATH"
: "${TEST_DATABASE_URL:=postgres://postgres@127.0.0.1:5432/test?sslmode=disable}"
: "${CHROMIUM_PATH:=/usr/bin/chromium}"

log() { printf 'prereqs: %s\n' "$*" >&2; }
die() {
	log "error: $1"
	log "fix: $2"
	exit 1
}
can_install() { [ "${MEMPROXY_NO_INSTALL:-0}" != 1 ] && [ "$(id -u)" -eq 0 ]; }

apt_updated=0
apt_install() {
	can_install || die "missing Debian package(s): $*" "apt-get install -y $* (as root)"
	if [ "$apt_updated" -eq 0 ]; then
		log "apt-get update"
		timeout 300 apt-get update -qq || die "apt-get update failed" "check that Debian's package mirror is reachable"
		apt_updated=1
	fi
	log "installing $*"
	DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends "$@" >/dev/null ||
		die "apt-get install $* failed" "apt-get install -y $* (as root) and read its error"
}

# Host and port of TEST_DATABASE_URL (postgres://user@host:port/db?...).
hostport="${TEST_DATABASE_URL#*://}"
hostport="${hostport#*@}"
hostport="${hostport%%/*}"
pghost="${hostport%%:*}"
pgport="${hostport##*:}"
[ "$pgport" != "$hostport" ] || pgport=5432

command -v go >/dev/null || die "Go is not installed" "install Go 1.26 under /usr/local/go (see go.mod)"
command -v pg_isready >/dev/null || apt_install postgresql-client

log "PostgreSQL at $pghost:$pgport"
if ! pg_isready -q -h "$pghost" -p "$pgport"; then
	case "$pghost" in
	127.0.0.1 | localhost | ::1)
		can_install || die "PostgreSQL is not answering at $pghost:$pgport" "pg_ctlcluster --skip-systemctl-redirect 15 main start"
		major="$(ls /etc/postgresql 2>/dev/null | sort -n | tail -1)"
		[ -n "$major" ] || die "no PostgreSQL cluster under /etc/postgresql" "apt-get install -y postgresql and create the database test"
		log "starting PostgreSQL $major"
		pg_ctlcluster --skip-systemctl-redirect "$major" main start || true
		for _ in $(seq 1 60); do pg_isready -q -h "$pghost" -p "$pgport" && break; sleep 1; done
		;;
	esac
	pg_isready -q -h "$pghost" -p "$pgport" ||
		die "PostgreSQL is not answering at $pghost:$pgport" "start it (pg_ctlcluster --skip-systemctl-redirect 15 main start) or set TEST_DATABASE_URL"
fi
psql "$TEST_DATABASE_URL" -qtAc 'SELECT 1' >/dev/null 2>&1 ||
	die "cannot connect to $TEST_DATABASE_URL" "create the database (createdb -U postgres test) or set TEST_DATABASE_URL"

log "pgvector"
if ! psql "$TEST_DATABASE_URL" -qtAc 'CREATE EXTENSION IF NOT EXISTS vector' >/dev/null 2>&1; then
	can_install || die "the vector extension is not installed" "bash scripts/install-pgvector.sh (as root)"
	bash scripts/install-pgvector.sh
	psql "$TEST_DATABASE_URL" -v ON_ERROR_STOP=1 -qtAc 'CREATE EXTENSION IF NOT EXISTS vector' >/dev/null ||
		die "CREATE EXTENSION vector failed after installing pgvector" "read the error of: psql \"$TEST_DATABASE_URL\" -c 'CREATE EXTENSION vector'"
fi

# Every PostgreSQL test makes and drops its own schema, so the system
# catalogs gather dead rows run after run; on a server with autovacuum off
# (as on these machines) they grew past 2 GB and slowed every test's
# migrations several times over. A plain VACUUM of the churned catalogs
# makes the space reusable; it takes well under a second when little is dead.
log "PostgreSQL catalogs (VACUUM)"
psql "$TEST_DATABASE_URL" -qtAc 'VACUUM pg_catalog.pg_attribute, pg_catalog.pg_attrdef, pg_catalog.pg_class, pg_catalog.pg_constraint, pg_catalog.pg_depend, pg_catalog.pg_index, pg_catalog.pg_inherits, pg_catalog.pg_rewrite, pg_catalog.pg_trigger, pg_catalog.pg_type, pg_catalog.pg_namespace, pg_catalog.pg_sequence, pg_catalog.pg_description' >/dev/null 2>&1 ||
	log "could not VACUUM the catalogs of $TEST_DATABASE_URL (not a superuser?); PostgreSQL tests may run slower"

log "Node.js and npm"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	apt_install nodejs npm
fi
nodemajor="$(node -p 'process.versions.node.split(".")[0]')"
[ "$nodemajor" -ge 20 ] || die "Node.js $nodemajor is too old (20+ needed)" "install Node.js 20 or newer"

log "Chromium ($CHROMIUM_PATH)"
if [ ! -x "$CHROMIUM_PATH" ]; then
	apt_install chromium
	[ -x "$CHROMIUM_PATH" ] || die "Chromium is not at $CHROMIUM_PATH after installing" "set CHROMIUM_PATH to the Chromium binary"
fi

log "Go modules"
timeout 600 go mod download || die "go mod download failed" "check that the Go module proxy is reachable (GOPROXY)"

for d in test/node test/browser; do
	[ -f "$d/package.json" ] || continue
	# Reinstall when the lock file changed since the last install.
	stamp="$d/node_modules/.memproxy-lock"
	if [ ! -f "$stamp" ] || ! cmp -s "$d/package-lock.json" "$stamp"; then
		log "npm packages in $d"
		(cd "$d" && timeout 600 npm ci --no-audit --no-fund --loglevel=error) ||
			die "npm ci in $d failed" "check that the npm registry is reachable, then: (cd $d && npm ci)"
		cp "$d/package-lock.json" "$stamp"
	fi
done
log "ready"
