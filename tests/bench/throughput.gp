# SPDX-License-Identifier: GPL-2.0-or-later
#
# Bar chart of tests/bench/bench.sh: one group per case, one bar per
# direction, the median with a min-max error bar and its value on top.
#
#   gnuplot -e "data='throughput.dat'; out='throughput.png'; \
#               ttl='...'; sub='...'" throughput.gp
#
# throughput.dat columns (report.py): label, guest->peer median min max,
# peer->guest median min max, in Gbit/s.

set terminal pngcairo size 1400,800 font "sans,12" noenhanced
set output out
set title ttl . "\n" . sub font "sans,14"
set ylabel "TCP throughput, iperf3 (Gbit/s)"
set xlabel "case (backend, guest, guest MTU)"
set yrange [0:*]
stats data using 2 nooutput
set xrange [-0.6:STATS_records - 0.4]
set offsets 0, 0, graph 0.08, 0
set grid ytics lc rgb "#dddddd"
set border 3
set tics nomirror
set xtics rotate by -25 left
set key top right box opaque
set style data histogram
set style histogram errorbars gap 1 lw 1.5
set style fill solid 0.85 border rgb "#333333"
set boxwidth 0.9
set bmargin 9
set rmargin 16

# A cluster of two bars and gap 1: bars are 1/3 wide, 1/6 either side of
# the cluster's centre
plot data using 2:3:4:xtic(1) title "guest -> peer (upload)" \
	lc rgb "#1f77b4", \
     "" using 5:6:7 title "peer -> guest (download)" lc rgb "#ff7f0e", \
     "" using ($0 - 1.0/6):4:(sprintf("%.2f", $2)) with labels \
	offset 0,0.8 font "sans,10" notitle, \
     "" using ($0 + 1.0/6):7:(sprintf("%.2f", $5)) with labels \
	offset 0,0.8 font "sans,10" notitle
