# bench/report/plots.gp -- the evaluation's figures, from DIR/plotdata/*.dat written by bench/report/run.sh.
#
#   gnuplot -e "dir='bench/results/<run>'" bench/report/plots.gp
#
# Writes into DIR (a figure whose data is missing is skipped):
#   overlap_vs_size.png   overlap % vs message size per backend, 0 test calls (solid) and the
#                         best test count (dashed); left: real shared memory, right: latency model
#   overlap_vs_tests.png  overlap % vs number of poll calls, 8 B and 1 MiB, both settings
#   pcg_vs_latency.png    PCG time per iteration vs modelled latency, per solver, per backend
#   noise.png             slow-down (%) of the time per iteration under noise, per solver
#   peers.png             time per iteration: ours (alg1, alg2, cg1, pipecg) vs hypre DS-PCG vs PETSc CG/PIPECG/GROPPCG
if (!exists("dir")) dir = "."
pd = dir . "/plotdata/"
set datafile missing "?"
set termoption noenhanced
set key outside right top box
set grid

exists_file(f) = int(system("test -s '" . f . "' && echo 1 || echo 0"))
ncols(f) = int(system("head -n 1 '" . f . "' | wc -w"))
files(pattern) = system("ls " . pd . pattern . " 2>/dev/null | tr '\\n' ' '")
basename(f) = system("basename '" . f . "' .dat")

# ---------------------------------------------------------------- overlap vs size
set terminal pngcairo size 1500,550 font ",10" noenhanced
if (exists_file(pd . "overlap_size_none.dat") || exists_file(pd . "overlap_size_model.dat")) {
    set output dir . "/overlap_vs_size.png"
    set multiplot layout 1,2 title "Overlap % vs message size (2 ranks, dummy compute = base latency; solid: 0 tests, dashed: best test count)"
    set logscale x 2
    set xtics ("8" 8, "64" 64, "512" 512, "4K" 4096, "32K" 32768, "256K" 262144, "1M" 1048576, "8M" 8388608)
    set xlabel "message size (bytes)"
    set ylabel "overlap %"
    set yrange [0:105]
    do for [w in "none model"] {
        f = pd . "overlap_size_" . w . ".dat"
        if (exists_file(f)) {
            n = ncols(f)
            set title (w eq "none" ? "no latency model (shared memory)" : "latency model pcg-overlap-256")
            plot for [i = 2:n:2] f using 1:i with linespoints lw 2 lc (i / 2) dt 1 title columnheader(i), \
                 for [i = 3:n:2] f using 1:i with linespoints lw 1 lc ((i - 1) / 2) dt 2 title columnheader(i)
        } else { set multiplot next }
    }
    unset multiplot
    unset logscale x
    set xtics auto
    set yrange [*:*]
}

# ---------------------------------------------------------------- overlap vs tests
set terminal pngcairo size 1500,1000 font ",10" noenhanced
if (exists_file(pd . "overlap_tests_model_8.dat") || exists_file(pd . "overlap_tests_none_8.dat")) {
    set output dir . "/overlap_vs_tests.png"
    set multiplot layout 2,2 title "Overlap % vs poll calls during the compute (test = ovk_reduce_test, hook = ovk_reducer_progress)"
    set xlabel "poll calls (0 = none)"
    set ylabel "overlap %"
    set yrange [0:105]
    do for [w in "none model"] {
        do for [s in "8 1048576"] {
            f = pd . "overlap_tests_" . w . "_" . s . ".dat"
            if (exists_file(f)) {
                n = ncols(f)
                set title sprintf("%s, %s", (s eq "8" ? "8 B" : "1 MiB"), (w eq "none" ? "no model" : "model pcg-overlap-256"))
                plot for [i = 2:n] f using 0:i:xtic(1) with linespoints lw 2 title columnheader(i)
            } else { set multiplot next }
        }
    }
    unset multiplot
    set yrange [*:*]
}

# ---------------------------------------------------------------- PCG vs latency
pcgfiles = files("pcg_*x*_*.dat")
if (words(pcgfiles) > 0) {
    grids = system("ls " . pd . "pcg_*x*_*.dat | sed 's/.*pcg_\\([0-9x]*\\)_.*/\\1/' | sort -t x -k3,3n -u | tr '\\n' ' '")
    backends = "blocking native nbc"
    set terminal pngcairo size 1500, (450 * words(grids)) font ",10" noenhanced
    set output dir . "/pcg_vs_latency.png"
    set multiplot layout words(grids), 3 title "PCG time per iteration vs modelled reduction latency (-latency_us, 2 ranks, median of repeats)"
    set xlabel "modelled latency per reduction (us)"
    set ylabel "time per iteration (us)"
    set yrange [0:*]
    do for [g in grids] {
        do for [b in backends] {
            f = pd . "pcg_" . g . "_" . b . ".dat"
            if (exists_file(f)) {
                n = ncols(f)
                set title sprintf("grid %s, backend %s", g, b)
                plot for [i = 2:n] f using 1:i with linespoints lw 2 title columnheader(i)
            } else { set multiplot next }
        }
    }
    unset multiplot
    set yrange [*:*]
}

# ---------------------------------------------------------------- noise
noisefiles = files("noise_*.dat")
if (words(noisefiles) > 0) {
    set terminal pngcairo size 1500,550 font ",10" noenhanced
    set output dir . "/noise.png"
    set multiplot layout 1, words(noisefiles) title "Slow-down of the time per iteration under noise (F Hz x D us per rank), vs no noise"
    set style data histograms
    set style histogram clustered gap 1
    set style fill solid 0.8 border -1
    set ylabel "slow-down %"
    set yrange [-1000 < * < 0 : *]
    set xlabel "noise"
    set xtics rotate by -30
    do for [f in noisefiles] {
        n = ncols(f)
        lat = system("basename '" . f . "' .dat | sed 's/noise_//'")
        set title sprintf("modelled latency %s us", lat)
        plot for [i = 2:n] f using i:xtic(1) title columnheader(i)
    }
    unset multiplot
    set style data lines
    set xtics norotate
    set yrange [*:*]
}

# ---------------------------------------------------------------- peers
if (exists_file(pd . "peers.dat")) {
    set terminal pngcairo size 1000,550 font ",10" noenhanced
    set output dir . "/peers.png"
    set title "Time per iteration: ovkrylov alg1 vs hypre DS-PCG vs PETSc (same problem, 2 ranks, median of repeats)"
    set style data histograms
    set style histogram clustered gap 1
    set style fill solid 0.8 border -1
    set xlabel "grid points per process (n^3)"
    set ylabel "time per iteration (ms)"
    set yrange [0:*]
    n = ncols(pd . "peers.dat")
    plot for [i = 2:n] pd . "peers.dat" using i:xtic(1) title columnheader(i)
}
