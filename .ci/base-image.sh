#!/usr/bin/env bash
# Makes the base image CI builds Scanyard's image on, since no container registry is reachable from
# here: Debian bookworm (debootstrap --variant=minbase, imported with podman import) with this
# machine's Node.js in the official node image's layout (/usr/local/bin/node, npm in
# /usr/local/lib/node_modules, headers in /usr/local/include/node), the host's CA bundle (the npm
# registry is reached through a re-signing proxy) and npm_config_nodedir (node-gyp cannot download
# headers). Prints the image's name. Made once per Node.js version and kept in podman's store.
#   .ci/base-image.sh WORKDIR
set -euo pipefail
work=$1
node_version=$(node --version)
image="localhost/scanyard-ci/base:bookworm-node${node_version#v}"
if podman image exists "$image"; then
  echo "$image"
  exit 0
fi
node_bin=$(readlink -f "$(command -v node)")
prefix=$(dirname "$(dirname "$node_bin")")          # /usr for Debian's and NodeSource's packages
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")   # .../lib/node_modules/npm
headers="$prefix/include/node"
for need in "$node_bin" "$npm_dir/bin/npm-cli.js" "$headers/node.h" /etc/ssl/certs/ca-certificates.crt; do
  [ -e "$need" ] || { echo "base image: $need is missing on this machine" >&2; exit 1; }
done

rootfs="$work/rootfs"
echo "-- debootstrap --variant=minbase bookworm" >&2
debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian > "$work/debootstrap.log" 2>&1 \
  || { tail -n 20 "$work/debootstrap.log" >&2; exit 1; }
cat > "$rootfs/etc/apt/sources.list" <<'LIST'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
LIST
install -D -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules" "$rootfs/usr/local/include"
cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
cp -a "$headers" "$rootfs/usr/local/include/node"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$rootfs/usr/local/share/ca-certificates/host-bundle.crt"
rm -rf "$rootfs/var/cache/apt/archives/"*.deb "$rootfs/var/lib/apt/lists/"*

echo "-- podman import $image" >&2
tar -C "$rootfs" --numeric-owner -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/host-bundle.crt' \
  --change 'ENV npm_config_cafile=/usr/local/share/ca-certificates/host-bundle.crt' \
  --change 'ENV npm_config_nodedir=/usr/local' \
  --change 'ENV npm_config_update_notifier=false' \
  --change 'CMD ["node"]' \
  - "$image" >&2
rm -rf "$rootfs"
echo "$image"
