# Lab 3 roofline plot: gnuplot -e "csv='measure.csv'; out='roofline.svg'" tests/labs/3/roofline.gp
# x: arithmetic intensity (MACs per HBM byte), y: MACs per cycle, for each variant and shape; the roof
# is min(N*N MACs/cycle, intensity * HBM bytes/cycle) for N = 16 and 32 bytes/cycle (docs/performance.md).
peak = 16 * 16
bw = 32.0
set terminal svg size 720,480 dynamic font "sans,12" background "#ffffff"
set output out
set datafile separator ","
set logscale xy 2
set xrange [1:64]
set yrange [1:512]
set xlabel "arithmetic intensity (MACs per HBM byte)"
set ylabel "MACs per cycle"
set key left top
set grid
roof(x) = x * bw < peak ? x * bw : peak
plot roof(x) with lines lw 2 lc rgb "#444444" title "roofline (N = 16, 32 B/cycle)", \
     csv using (strcol(1) eq "single" ? $6 / $7 : 1/0):(strcol(1) eq "single" ? $6 / $5 : 1/0) \
         with points pt 7 ps 1.2 lc rgb "#d62728" title "single-buffered", \
     csv using (strcol(1) eq "double" ? $6 / $7 : 1/0):(strcol(1) eq "double" ? $6 / $5 : 1/0) \
         with points pt 5 ps 1.2 lc rgb "#1f77b4" title "double-buffered"
