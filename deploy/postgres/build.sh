#!/usr/bin/env bash
# Builds the composition's Postgres image (default settlement-sandbox-postgres:local) from this machine's Debian
# Postgres 15 (`apt-get install postgresql`), on the project's local Node base (scripts/image/build-base.sh), because
# no image registry is reachable here. The server binaries, their shared libraries (found with ldd), the share folder
# and the time zones go in; entrypoint.mjs (Node, which the base has) initialises the data folder and runs the server
# as the `postgres` user. With a registry, `image: postgres:15` does the same job: see deploy/compose.yaml.
# Usage: deploy/postgres/build.sh [TAG] [BASE]
set -euo pipefail
tag="${1:-settlement-sandbox-postgres:local}"
base="${2:-settlement-sandbox-base:node20}"
docker_cli="${DOCKER:-$(command -v /usr/bin/docker || command -v docker)}"
here="$(cd "$(dirname "$0")" && pwd)"
pg_root="$(ls -d /usr/lib/postgresql/*/ 2>/dev/null | sort -V | tail -1)"
[ -n "$pg_root" ] || { echo "build.sh: no /usr/lib/postgresql/<version> (apt-get install postgresql)" >&2; exit 1; }
version="$(basename "$pg_root")"
if ! "$docker_cli" image inspect "$base" >/dev/null 2>&1; then
  DOCKER="$docker_cli" "$here/../../scripts/image/build-base.sh" "$base" >/dev/null
fi

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/lib/postgresql" "$root/usr/share/postgresql" "$root/usr/share" "$root/etc" "$root/var/lib/postgresql" "$root/run/postgresql"
cp -a "/usr/lib/postgresql/$version" "$root/usr/lib/postgresql/"
cp -a "/usr/share/postgresql/$version" "$root/usr/share/postgresql/"
cp -a /usr/share/zoneinfo "$root/usr/share/"
# Every library the server, its tools and its extension modules load, at the path the loader looks for it.
for file in "$root/usr/lib/postgresql/$version/bin/"* "$root/usr/lib/postgresql/$version/lib/"*.so; do
  ldd "${file#$root}" 2>/dev/null | awk '/=>/ { print $3 }'
done | sort -u | while read -r lib; do
  [ -n "$lib" ] && [ -e "$lib" ] || continue
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
printf 'root:x:0:0:root:/root:/bin/sh\npostgres:x:999:999:PostgreSQL:/var/lib/postgresql:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\npostgres:x:999:\n' >"$root/etc/group"
cp "$here/entrypoint.mjs" "$root/entrypoint.mjs"
cat >"$root/Dockerfile" <<DOCKERFILE
FROM $base
COPY . /
ENV PATH=/usr/lib/postgresql/$version/bin:/usr/local/bin:/usr/bin:/bin PGDATA=/var/lib/postgresql/data
EXPOSE 5432
VOLUME /var/lib/postgresql/data
HEALTHCHECK --interval=2s --timeout=3s --retries=30 CMD ["pg_isready", "-h", "127.0.0.1", "-p", "5432", "-U", "sandbox", "-d", "sandbox"]
ENTRYPOINT ["node", "/entrypoint.mjs"]
DOCKERFILE
printf 'Dockerfile\n' >"$root/.dockerignore"
DOCKER_BUILDKIT=0 "$docker_cli" build -q -t "$tag" "$root" >/dev/null
echo "$tag"
