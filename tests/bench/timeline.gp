# Timeline rendering (tests/bench/timeline.py png). Call with
#   gnuplot -e "dat='T.dat'; out='T.png'; tics='\"DMA\" 2, ...'; lo=0; hi=1000; ntracks=6" timeline.gp
# T.dat: x centre, track, half width, half height, colour, label (one box per span, cycles on x;
# the colour and the label name the operation or phase).
set terminal pngcairo size 1400,420 font ",11"
set output out
set title 'Tessel SoC timeline (tessel gemm --timeline; one row per unit, cycles on x)'
set xlabel 'SoC clock cycle'
set xrange [lo:hi]
set yrange [ntracks - 0.5:-0.5]
eval('set ytics ('.tics.')')
set grid x
set style fill solid 0.85 noborder
unset key
plot dat using 1:2:3:4:5 with boxxyerror lc variable, dat using 1:2:6 with labels font ',9'
