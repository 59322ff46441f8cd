# MXU utilisation against GEMM size (tests/bench/bench.py --plots). Call with
#   gnuplot -e "dir='OUT'; series='int8_n16 bf16_n16 ...'" utilisation.gp
# reading OUT/util_<series>.dat (M = N = K, utilisation %) and writing OUT/utilisation.png.
set terminal pngcairo size 900,560 font ",11" noenhanced
set output dir.'/utilisation.png'
set title 'Tessel square GEMMs on the simulated SoC: MXU utilisation, doorbell to completion'
set xlabel 'M = N = K'
set ylabel 'utilisation (% of N^2 MAC/cycle)'
set logscale x 2
set yrange [0:105]
set grid
set key left top
plot for [s in series] dir.'/util_'.s.'.dat' using 1:2 with linespoints lw 2 pt 7 \
       title sprintf('%s N=%s', s[1:strstrt(s, '_') - 1], s[strstrt(s, '_') + 2:])
