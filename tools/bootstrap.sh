#!/bin/sh
# Bring a Debian machine to a built stir: install the packages that are
# missing, generate and run configure, build.  Safe to run again: each step
# runs only when it is needed.  Used by tools/run-demo and tools/run-tests.
set -eu
cd "$(dirname "$0")/.."

packages="build-essential autoconf automake libtool pkg-config bison flex libyaml-dev check python3-numpy python3-scipy"
missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	echo "bootstrap: installing$missing"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi

[ -x configure ] || autoreconf -fi
if [ ! -f build/Makefile ]; then
	mkdir -p build
	(cd build && ../configure)
fi
make -C build -j"$(nproc)"
