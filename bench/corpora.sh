#!/usr/bin/env bash
# Prepares the benchmark corpora under ${FATHOM_BENCH_DIR:-/tmp/fathom-bench}. Idempotent: every
# corpus is built in a temporary folder and moved into place, so a present folder is a complete one.
#
#   linux       Linux 6.1 from Debian's linux-source-6.1 tarball (top folder stripped)
#   linux-git   a copy of linux committed to git (for `git status`), Debian's root .gitignore removed
#   django      Debian's python3-django package sources
#   typescript  the typescript 5.9.3 npm package, unpacked
#   werkzeug, jinja2   Debian's python3-werkzeug / python3-jinja2 sources (retrieval evaluation)
#   zod         the src/ folder of the zod 3.25.76 npm package (retrieval evaluation)
#   ovs         Open vSwitch 3.1's C sources (lib, include, ofproto, ovsdb, vswitchd, utilities,
#               vtep) from Debian's openvswitch-source tarball (retrieval evaluation, C)
set -euo pipefail

DIR=${FATHOM_BENCH_DIR:-/tmp/fathom-bench}
KERNEL_TARBALL=/usr/src/linux-source-6.1.tar.xz
DJANGO_SOURCE=/usr/lib/python3/dist-packages/django
TYPESCRIPT_VERSION=5.9.3
ZOD_VERSION=3.25.76
OVS_TARBALL=/usr/src/openvswitch/openvswitch.tar.gz

log() { printf '[corpora] %s\n' "$*" >&2; }

is_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

install_packages() {
  local missing=()
  for package in linux-source-6.1 python3-django python3-werkzeug python3-jinja2 openvswitch-source ripgrep universal-ctags; do
    is_installed "$package" || missing+=("$package")
  done
  if ((${#missing[@]} == 0)); then return; fi
  log "installing ${missing[*]}"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
}

# Runs "$2 TMP" to build corpus $1 in a temporary folder, then moves it into place; skips a present corpus.
build_corpus() {
  local name=$1 builder=$2
  if [[ -d $DIR/$name ]]; then
    log "$name: present"
    return
  fi
  log "$name: building"
  rm -rf "$DIR/$name.tmp"
  mkdir -p "$DIR/$name.tmp"
  "$builder" "$DIR/$name.tmp"
  mv "$DIR/$name.tmp" "$DIR/$name"
}

build_linux() {
  tar -xJf "$KERNEL_TARBALL" -C "$1" --strip-components=1
}

build_django() {
  cp -a "$DJANGO_SOURCE/." "$1"
}

build_typescript() {
  local tarball
  tarball=$(cd "$1" && npm pack --silent "typescript@$TYPESCRIPT_VERSION")
  tar -xzf "$1/$tarball" -C "$1" --strip-components=1
  rm "$1/$tarball"
}

# A Debian Python package's sources without the bytecode caches.
copy_python_package() {
  cp -a "/usr/lib/python3/dist-packages/$1/." "$2"
  find "$2" -name __pycache__ -type d -prune -exec rm -rf {} +
}

build_werkzeug() { copy_python_package werkzeug "$1"; }
build_jinja2() { copy_python_package jinja2 "$1"; }

build_zod() {
  local tarball
  tarball=$(cd "$1" && npm pack --silent "zod@$ZOD_VERSION")
  tar -xzf "$1/$tarball" -C "$1" --strip-components=2 package/src
  rm "$1/$tarball"
}

build_ovs() {
  tar -xzf "$OVS_TARBALL" -C "$1" --strip-components=1 openvswitch/lib openvswitch/include openvswitch/ofproto openvswitch/ovsdb openvswitch/vswitchd openvswitch/utilities openvswitch/vtep
}

build_linux_git() {
  cp -a "$DIR/linux/." "$1"
  # Debian's root .gitignore ends in `/*` (ignore everything): inside git the tree would look empty.
  rm -f "$1/.gitignore"
  git -C "$1" init -q
  git -C "$1" config gc.auto 0
  git -C "$1" add -A
  git -C "$1" -c user.name=fathom-bench -c user.email=fathom-bench@invalid commit -qm base
}

main() {
  install_packages
  mkdir -p "$DIR"
  build_corpus linux build_linux
  build_corpus django build_django
  build_corpus typescript build_typescript
  build_corpus linux-git build_linux_git
  build_corpus werkzeug build_werkzeug
  build_corpus jinja2 build_jinja2
  build_corpus zod build_zod
  build_corpus ovs build_ovs
  log "ready in $DIR"
}

main "$@"
