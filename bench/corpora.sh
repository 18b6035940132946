#!/usr/bin/env bash
# Prepares the benchmark corpora under ${FATHOM_BENCH_DIR:-/tmp/fathom-bench}. Idempotent: every
# corpus is built in a temporary folder and moved into place, so a present folder is a complete one.
#
#   linux       Linux 6.1 from Debian's linux-source-6.1 tarball (top folder stripped)
#   linux-git   a copy of linux committed to git (for `git status`), Debian's root .gitignore removed
#   django      Debian's python3-django package sources
#   typescript  the typescript 5.9.3 npm package, unpacked
set -euo pipefail

DIR=${FATHOM_BENCH_DIR:-/tmp/fathom-bench}
KERNEL_TARBALL=/usr/src/linux-source-6.1.tar.xz
DJANGO_SOURCE=/usr/lib/python3/dist-packages/django
TYPESCRIPT_VERSION=5.9.3

log() { printf '[corpora] %s\n' "$*" >&2; }

is_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

install_packages() {
  local missing=()
  for package in linux-source-6.1 python3-django ripgrep universal-ctags; do
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
  log "ready in $DIR"
}

main "$@"
