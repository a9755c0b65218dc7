#!/usr/bin/env bash
# Builds a minimal Node 20 base image from this machine's own files, for hosts that reach no image registry:
# FROM scratch + the node binary, the shared libraries it and the sandbox's native parts (anvil, better-sqlite3)
# load (found with ldd), and dash as /bin/sh (testcontainers' default wait strategy and `docker exec` want a shell).
# Usage: scripts/image/build-base.sh [TAG]   (default settlement-sandbox-base:node20)
set -euo pipefail
tag="${1:-settlement-sandbox-base:node20}"
docker_cli="${DOCKER:-$(command -v /usr/bin/docker || command -v docker)}"
node_bin="$(readlink -f "$(command -v node)")"
case "$("$node_bin" --version)" in v20.*) ;; *) echo "build-base: node 20 expected, found $("$node_bin" --version)" >&2; exit 1 ;; esac
sh_bin="$(readlink -f "$(command -v dash || command -v busybox)")"

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/local/bin" "$root/bin" "$root/tmp" "$root/etc" "$root/app"
chmod 1777 "$root/tmp"
cp "$node_bin" "$root/usr/local/bin/node"
cp "$sh_bin" "$root/bin/sh"

# Every library node, the shell, anvil and better-sqlite3 need, at the path the loader looks for it. anvil and
# better-sqlite3 are libc/libstdc++/libgcc/libm users like node: the union is the same few files.
libs() { ldd "$1" | awk '/=>/ { print $3 } /^\s*\/lib/ { print $1 }'; }
{ libs "$node_bin"; libs "$sh_bin"; } | sort -u | while read -r lib; do
  [ -n "$lib" ] || continue
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
# The loader is looked up as /lib64/ld-linux-x86-64.so.2 (a symlink on merged-/usr Debian).
for extra in /lib64/ld-linux-x86-64.so.2 /lib/x86_64-linux-gnu/libgcc_s.so.1 /lib/x86_64-linux-gnu/libstdc++.so.6 /lib/x86_64-linux-gnu/libm.so.6; do
  [ -e "$extra" ] || continue
  mkdir -p "$root$(dirname "$extra")"
  cp -L "$extra" "$root$extra"
done
printf 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000:node:/home/node:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nnode:x:1000:\n' >"$root/etc/group"
printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
mkdir -p "$root/home/node" && chown 1000:1000 "$root/home/node"

cat >"$root/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY . /
ENV PATH=/usr/local/bin:/usr/bin:/bin NODE_VERSION=20
CMD ["node"]
DOCKERFILE
# The Dockerfile itself must not land in the image.
printf 'Dockerfile\n' >"$root/.dockerignore"
DOCKER_BUILDKIT=0 "$docker_cli" build -q -t "$tag" "$root" >/dev/null
echo "$tag"
