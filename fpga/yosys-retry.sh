#!/bin/sh
# yosys ARGS..., run a second time if the first run fails. Yosys 0.23's berkeley-abc can abort on an
# assertion in lutpack (src/opt/lpk/lpkCut.c) that depends on heap addresses, so a synthesis that
# passes almost always fails once in a while; a real error fails both runs.
yosys "$@" && exit 0
echo "yosys failed; running it once more (ABC in Yosys 0.23 can abort at random)" >&2
exec yosys "$@"
