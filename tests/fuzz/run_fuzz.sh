#!/bin/sh
# run_fuzz.sh NAME BINARY CORPUS OUTDIR SECONDS  (mk/fuzz.mk)
# 1. Regression: run BINARY once over every file of the committed CORPUS.
# 2. Fuzz for SECONDS from CORPUS, new inputs into a fresh OUTDIR/NAME.new, crashes into
#    OUTDIR/crash-*.
# Prints the executions of each phase and "fuzz_NAME: P passed, F failed". SEED= fixes -seed.
name=$1 bin=$2 corpus=$3 out=$4 secs=$5
log=$out/$name.log
pass=0 fail=0
files=$(ls "$corpus" | wc -l)
if "$bin" -runs=0 "$corpus" >"$log" 2>&1 && [ "$files" -gt 0 ]; then
    pass=$((pass + 1))
    echo "fuzz_$name: corpus replay: $files inputs, no failure"
else
    fail=$((fail + 1))
    echo "FAIL: fuzz_$name: corpus replay over $corpus ($files inputs)"; tail -30 "$log"
fi
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
rm -rf "$out/$name.new" && mkdir -p "$out/$name.new"   # each run starts from the committed corpus
if "$bin" -max_total_time="$secs" -seed="$seed" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$out/crash-$name-" "$out/$name.new" "$corpus" >"$log" 2>&1; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL: fuzz_$name (seed $seed): see $log"; grep -A25 -m1 'ERROR\|check failed\|==[0-9]*==' "$log" | head -40
fi
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
echo "fuzz_$name: ${runs:-0} executions in $secs s (seed $seed), $(ls "$out/$name.new" | wc -l) new inputs"
echo "fuzz_$name: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
