# Roofline chart (tests/bench/bench.py --plots). Call with
#   gnuplot -e "dir='OUT'; sizes='16 4'; bw='32 8'" roofline.gp
# reading OUT/roofline.dat (intensity MAC/byte, achieved MAC/cycle, N, label) and writing
# OUT/roofline.png: for each MXU size N the roof min(N^2, bw * intensity) and the measured points.
set terminal pngcairo size 900,600 font ",11"
set output dir.'/roofline.png'
set title 'Tessel roofline: achieved MAC/cycle against arithmetic intensity'
set xlabel 'arithmetic intensity (MACs per compulsory HBM byte)'
set ylabel 'MAC / cycle'
set logscale xy 2
set format x '2^{%L}'
set format y '2^{%L}'
set xrange [0.0625:512]
set yrange [0.25:512]
set grid
set key right bottom
set samples 400
roof(x, n, b) = (b * x < n * n) ? b * x : n * n
plot for [i=1:words(sizes)] roof(x, word(sizes, i) + 0, word(bw, i) + 0) with lines lw 2 dt 2 \
       title sprintf('roof N=%s (%s MAC/cycle, %s B/cycle)', word(sizes, i), \
                     sprintf('%d', (word(sizes, i) + 0) ** 2), word(bw, i)), \
     for [i=1:words(sizes)] dir.'/roofline.dat' using 1:($3 == word(sizes, i) + 0 ? $2 : 1/0) \
       with points pt 7 ps 1.3 title sprintf('measured N=%s', word(sizes, i))
