#!/bin/sh
# bin/awf and bin/wfa of the npm package awf: finds the binary of its own name in the platform
# package npm installed for this machine (awf-<os>-<cpu>-<libc>, an optional dependency) and
# execs it. A shell script rather than a node one: awf then runs as its own process, so Ctrl-C
# and SIGTERM reach it once, its exit code is its own, and no node starts before it.
self=$0
case $self in */*) ;; *) self=./$self ;; esac
# node_modules/.bin/awf is a link to this file: follow it to the package.
while [ -L "$self" ]; do
  link=$(readlink "$self")
  case $link in /*) self=$link ;; *) self=${self%/*}/$link ;; esac
done
name=${self##*/}
case $name in awf | wfa) ;; *) name=awf ;; esac
package=$(cd "${self%/*}/.." && pwd -P)

machine=$(uname -sm)
case ${machine% *} in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) os=$(printf '%s' "${machine% *}" | tr '[:upper:]' '[:lower:]') ;;
esac
case ${machine#* } in
  x86_64 | amd64) cpu=x64 ;;
  aarch64 | arm64) cpu=arm64 ;;
  *) cpu=${machine#* } ;;
esac
# npm installed the one whose libc fits; on Linux either may be the one.
if [ "$os" = linux ]; then
  candidates="awf-$os-$cpu-gnu awf-$os-$cpu-musl"
else
  candidates="awf-$os-$cpu"
fi

# Where node would find the platform package from this one: its own node_modules, then each
# folder above (npm hoists it beside awf; pnpm puts it beside awf in its store).
dir=$package
while :; do
  for candidate in $candidates; do
    binary=$dir/node_modules/$candidate/bin/$name
    if [ -x "$binary" ]; then
      exec "$binary" "$@"
    fi
  done
  [ -z "$dir" ] && break
  dir=${dir%/*}
done

# The platform packages this awf lists (its package.json's optionalDependencies).
shipped=$(sed -n 's/^ *"\(awf-[a-z0-9-]*\)": *".*/\1/p' "$package/package.json" | tr '\n' ' ')
for candidate in $candidates; do
  case " $shipped " in
    *" $candidate "*)
      echo "awf: the npm package $candidate, which holds $name for this machine ($os $cpu), is not installed beside $package" >&2
      echo "hint: npm skips optional dependencies under --omit=optional (or --no-optional): install again without it (npm i -D awf), or build awf from source: cargo install awf-cli" >&2
      exit 127
      ;;
  esac
done
echo "awf: the npm package awf has no prebuilt $name for this machine ($os $cpu); it has: ${shipped% }" >&2
echo "hint: build awf from source with a Rust toolchain: cargo install awf-cli puts awf and wfa in ~/.cargo/bin; from a checkout of awf: cargo install --path cli" >&2
exit 127
