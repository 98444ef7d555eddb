#!/usr/bin/env bash
# install-pgvector.sh installs the pgvector extension on a Debian 12
# (bookworm) machine, built from Debian's own source package against the
# PostgreSQL server that is already installed.
#
# Why from source: bookworm ships no pgvector 0.8 binary for PostgreSQL 15,
# and memproxy needs 0.8's iterative index scans. Debian trixie carries
# pgvector 0.8.x as a source package that builds against PostgreSQL 15 in
# seconds, so we add a deb-src line for trixie (sources only: no binary from
# trixie is ever installed or upgraded), fetch it with `apt-get source`, and
# `make && make install` it with the server's pg_config.
#
# Idempotent: when the server already offers the `vector` extension (its
# control file is installed) the script exits at once.
#
# Environment:
#   PG_MAJOR       server major version (default: the newest under /usr/lib/postgresql)
#   PGVECTOR_DIR   build directory (default: /usr/local/src/pgvector)
#
# System packages installed: postgresql-server-dev-$PG_MAJOR, build-essential,
# dpkg-dev (for apt-get source). Needs root.
set -euo pipefail

log() { printf 'install-pgvector: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

PG_MAJOR="${PG_MAJOR:-$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1)}"
[ -n "$PG_MAJOR" ] || die "no PostgreSQL server under /usr/lib/postgresql; install postgresql first"
PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config"
[ -x "$PG_CONFIG" ] || die "$PG_CONFIG not found; is postgresql-$PG_MAJOR installed?"

control="$("$PG_CONFIG" --sharedir)/extension/vector.control"
if [ -f "$control" ]; then
	log "pgvector already installed for PostgreSQL $PG_MAJOR ($(grep default_version "$control" | tr -d "' "))"
	exit 0
fi

[ "$(id -u)" -eq 0 ] || die "run as root (apt-get and make install need it)"

# Source-only entry for trixie. Types: deb-src means apt never considers a
# trixie binary for install or upgrade.
src_list=/etc/apt/sources.list.d/memproxy-trixie-src.sources
if [ ! -f "$src_list" ]; then
	log "adding deb-src for trixie ($src_list)"
	cat >"$src_list" <<'EOF'
# Added by memproxy scripts/install-pgvector.sh: source packages only.
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
fi

export DEBIAN_FRONTEND=noninteractive
log "apt-get update"
apt-get update -qq
log "installing build dependencies"
apt-get install -y -qq --no-install-recommends \
	"postgresql-server-dev-$PG_MAJOR" build-essential dpkg-dev >/dev/null

PGVECTOR_DIR="${PGVECTOR_DIR:-/usr/local/src/pgvector}"
mkdir -p "$PGVECTOR_DIR"
cd "$PGVECTOR_DIR"
log "fetching the pgvector source package into $PGVECTOR_DIR"
apt-get source -qq pgvector >/dev/null
srcdir="$(find . -maxdepth 1 -type d -name 'pgvector-*' | sort -V | tail -1)"
[ -n "$srcdir" ] || die "apt-get source pgvector produced no pgvector-* directory"
version="${srcdir#./pgvector-}"
case "$version" in
0.8.* | 0.9.* | 0.1[0-9].*) ;;
*) die "pgvector $version is too old: memproxy needs 0.8 or newer (iterative index scans)" ;;
esac

log "building pgvector $version against PostgreSQL $PG_MAJOR"
cd "$srcdir"
make -s PG_CONFIG="$PG_CONFIG" -j"$(nproc)"
make -s PG_CONFIG="$PG_CONFIG" install

[ -f "$control" ] || die "make install finished but $control is missing"
log "pgvector $version installed; enable it per database with: CREATE EXTENSION IF NOT EXISTS vector"
