#!/bin/sh
# A course submission (tests/fixtures/), built apart as STUDENT=DIR builds one, run by
# the real program through SC_STUDENT_LIBRARY.
# Usage: run_submission_checks.sh CHECK path/to/cis565_stream_compaction path/to/libsc_submission.so
#   cpu      the student-cpu functions pass the course run and a sweep, timed by the implementation
#   crashes  tests/fixtures/crashes: a thrown exception fails its test and the run goes on;
#            the functions it lacks read "not offered"
#   broken   a submission that did not compile: its first errors with file and line, then
#            the project's own back ends run; exit status 1
#   grade-cpu      the grade's CPU columns all pass
#   grade-crashes  tests/fixtures/crashes graded: a segfault and an exception fail their
#                  cases alone; the missing functions read "not offered" in every row
#   grade-gpu      the grade's GPU columns as each fixture's GPU code makes them; exit 77
#                  (skipped) without a CUDA device. The fixture is named by its library's folder.
#   explain        tests/fixtures/timer-includes-malloc with --explain: what its timers bracket;
#                  exit 77 (skipped) without a CUDA device or CUPTI
#   hangs          tests/fixtures/hangs: a hang, a segfault and an exit() fail their course
#                  tests alone; explain names the segfault
#   setup-throws   tests/fixtures/setup-throws: its harnessSetup() throws, which fails each call
#   base-code, cpu-mistakes, own-main  tests/fixtures/<the same name>: each test's hint, or its
#                  pass by the course's rules, in the course run and in the grade
#   report         the report (--quick) of the submission and of the project's own back ends;
#                  $GFM_CHECK checks its markdown
#   student-dir    make STUDENT=DIR and cmake -DSC_STUDENT_DIR=DIR refuse a DIR without
#                  stream_compaction/ (the program and library arguments are not used)
check="$1"
program="$2"
SC_STUDENT_LIBRARY="$3"
export SC_STUDENT_LIBRARY
. "$(dirname "$0")/check_helpers.sh"

# expect FILE TEXT: FILE holds TEXT (a fixed string).
expect() {
  if grep -qF -- "$2" "$1"; then echo "ok: $2"; else fail "no '$2' in $1"; fi
}

# expectMatch FILE REGEX WHAT: a line of FILE matches the extended REGEX; WHAT names it.
expectMatch() {
  if grep -qE -- "$2" "$1"; then echo "ok: $3"; else fail "no $3 in $1"; fi
}

# count FILE TEXT N: TEXT (fixed) is on exactly N lines of FILE.
count() {
  found=$(grep -cF -- "$2" "$1")
  if [ "$found" -eq "$3" ]; then echo "ok: $3 x '$2'"; else fail "$found x '$2' in $1, expected $3"; fi
}

# tally N M: the grade's CSV in $dir/out counts N passed and M failed cases (every outcome
# but "passed" and "skipped" fails), as its text's last line would say.
tally() {
  found=$(awk -F, 'NR > 1 { if ($4 == "passed") p++; else if ($4 != "skipped") f++ }
    END { printf "%d passed, %d failed", p, f }' "$dir/out")
  if [ "$found" = "$1 passed, $2 failed" ]; then echo "ok: $found"; else fail "$found, expected $1 passed, $2 failed"; fi
}

# run ARGS...: runs the program, stdout to $dir/out, stderr to $dir/err; sets $status.
# $dir/rows gets the lines of stdout that are not "#" comments (a CSV report's rows),
# less a sweep CSV's first four columns (run id, date, GPU and mode, which differ by run).
run() {
  "$program" "$@" >"$dir/out" 2>"$dir/err"
  status=$?
  if head -1 "$dir/out" | grep -q '^run_id,date,gpu,mode,'; then
    cut -d, -f5- "$dir/out" >"$dir/rows"
  else
    grep -v '^#' "$dir/out" >"$dir/rows"
  fi
}

case "$check" in
  cpu)
    run --size 2^12 --backends student-cpu
    [ "$status" -eq 0 ] || fail "course run exit $status"
    expect "$dir/out" "student-* back ends: the course submission in"
    count "$dir/out" "(std::chrono Measured, timed by the implementation)" 6
    count "$dir/out" "    passed" 6
    expect "$dir/out" "==== student cpu compact with scan, non-power-of-two ===="
    count "$dir/out" "FAIL" 0
    [ -s "$dir/err" ] && fail "stderr: $(cat "$dir/err")"

    run --sizes 2^12 --backends cpu,student-cpu --ops scan,compact --format csv
    [ "$status" -eq 0 ] || fail "sweep exit $status"
    for row in scan,student-cpu,4096,false scan,student-cpu,4093,true compact,student-cpu,4096,false \
               compact,student-cpu,4093,true; do
      if grep -q "^$row,.*,passed,timed by the implementation" "$dir/rows"; then echo "ok: $row"; else fail "$row"; fi
    done
    # The project's CPU is the baseline of "x cpu", never the submission's.
    if grep -q "^scan,cpu,4096,false,.*,passed," "$dir/rows"; then echo "ok: cpu row"; else fail "cpu row"; fi
    ;;
  crashes)
    run --size 2^12 --backends student-cpu,student-naive,student-efficient,student-thrust
    [ "$status" -eq 1 ] || fail "course run exit $status, expected 1"
    count "$dir/out" "==== student cpu scan, " 2
    count "$dir/out" "==== student cpu compact without scan, " 2
    count "$dir/out" "    passed" 4
    count "$dir/out" "    crashed: student-cpu compactWithScan, n = 409" 2
    expect "$dir/out" "the implementation threw: CPU timer already started"
    for symbol in Naive::scan Efficient::scan Efficient::compact Thrust::scan; do
      expect "$dir/out" "not offered: the submission defines no StreamCompaction::$symbol with the course's type"
    done
    ;;
  broken)
    run --size 2^10 --backends cpu,student-cpu,student-naive
    [ "$status" -eq 1 ] || fail "exit $status, expected 1"
    expect "$dir/err" "does not compile; its first errors:"
    expectMatch "$dir/err" "fixtures/does-not-compile/stream_compaction/naive\.cu\(11\): error" "naive.cu(11) error"
    # The project's CPU: scan, compact without and with scan, partition, sort, each twice.
    count "$dir/out" "    passed" 10
    # The submission's: cpu scan, compact without and with scan, naive scan.
    count "$dir/out" "not offered: the submission did not build (see above)" 4
    # The report of a submission that did not build: its errors, nothing written, exit 1.
    "$program" report --quick --quiet --out "$dir/perf" >"$dir/out" 2>"$dir/err"
    status=$?
    [ "$status" -eq 1 ] || fail "report exit $status, expected 1"
    expect "$dir/err" "does not compile; its first errors:"
    [ -e "$dir/perf" ] && fail "the report of a submission that did not build wrote $dir/perf"
    ;;
  grade-cpu)
    run --grade --backends student-cpu --format csv
    [ "$status" -eq 0 ] || fail "grade exit $status"
    for function in "cpu scan" "cpu compactWithoutScan" "cpu compactWithScan"; do
      count "$dir/rows" ",$function,passed," 17
    done
    tally 51 0
    run --grade --backends student-cpu --format json
    if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(d["passed"] != 51 or d["failed"] != 0)' \
        "$dir/out" 2>/dev/null || ! command -v python3 >/dev/null; then
      echo "ok: json"
    else
      fail "json"
    fi
    run --grade --backends student-cpu --format markdown
    expect "$dir/out" "| case | n | cpu scan | cpu compactWithoutScan | cpu compactWithScan |"
    run --grade --backends student-cpu
    if tail -n 1 "$dir/out" | grep -qx "51 passed, 0 failed"; then echo "ok: last line"; else fail "last line"; fi
    ;;
  grade-crashes)
    run --grade --format csv
    [ "$status" -eq 1 ] || fail "grade exit $status, expected 1"
    count "$dir/rows" ",cpu scan,passed," 17
    expect "$dir/rows" "2^20 (the course's),1048576,cpu compactWithoutScan,passed,"
    # A segfault: the signal named as the course run names it, or under AddressSanitizer its
    # report and exit status.
    for row in "n = 1,1" "all zeros (n = 10000),10000"; do
      if grep -F "$row,cpu compactWithoutScan,crashed,," "$dir/rows" |
        grep -qE "the process died of SIGSEGV \(segmentation fault\)|AddressSanitizer: SEGV"; then
        echo "ok: $row segfault"
      else
        fail "$row: no segfault"
      fi
    done
    count "$dir/rows" ',cpu compactWithScan,crashed,,"student-cpu compactWithScan, n = ' 17
    count "$dir/rows" "the implementation threw: CPU timer already started" 17
    count "$dir/rows" ",not offered,," 68
    if head -n 1 "$dir/out" | grep -qx "case,n,function,outcome,index,detail,hint" && ! grep -q '^#' "$dir/out"; then
      echo "ok: a plain CSV"
    else
      fail "not a plain CSV: $(head -n 1 "$dir/out")"
    fi
    ;;
  grade-gpu)
    run --grade --format csv
    if grep -qF ",skipped,,no CUDA device" "$dir/out"; then
      echo "skipped: no CUDA device"
      exit 77
    fi
    fixture=$(basename "$(dirname "$SC_STUDENT_LIBRARY")")
    for function in "cpu scan" "cpu compactWithoutScan" "cpu compactWithScan"; do
      count "$dir/rows" ",$function,passed," 17
    done
    case "$fixture" in
      global-kernels)
        [ "$status" -eq 0 ] || fail "grade exit $status"
        tally 119 0
        # Its block size is a macro: a block-size sweep measures it once, and says so.
        run --sizes 2^16 --block-sizes 128,256 --backends student-naive --ops scan --npot --format csv
        count "$dir/out" "fixed block size: measured once, for every block size" 2
        ;;
      timer-includes-malloc)
        [ "$status" -eq 1 ] || fail "grade exit $status, expected 1 (no efficient compact)"
        count "$dir/rows" ",efficient compact,not offered,," 17
        tally 102 17
        # Its setBlockSize hook: the grade passes at another block size, and a block-size
        # sweep measures it at each one.
        run --grade --block-size 512 --backends student-naive,student-efficient --format csv
        tally 34 17
        run --sizes 2^16 --block-sizes 128,256 --backends student-naive --ops scan --no-npot --format csv
        expect "$dir/rows" "scan,student-naive,65536,false,128,"
        expect "$dir/rows" "scan,student-naive,65536,false,256,"
        count "$dir/rows" ",passed,timed by the implementation" 2
        ;;
      npot-off-by-one)
        [ "$status" -eq 1 ] || fail "grade exit $status, expected 1"
        count "$dir/rows" ",naive scan,passed," 17
        count "$dir/rows" ",thrust scan,passed," 17
        # ilog2 for ilog2ceil: wrong from index 2^floor(log2 n) on, when n is not a power of two.
        run --size 2^12 --backends student-efficient
        count "$dir/out" "    hint: fails only at SIZE - 3: check the padding to the next power of two" 2
        run --grade --format csv
        for line in "2^20 (the course's),1048576,efficient scan,passed," \
                    "2^20 - 3 (the course's),1048573,efficient scan,fail value,524288," \
                    "n = 1,1,efficient scan,passed," "n = 32,32,efficient scan,passed," \
                    "n = 1000,1000,efficient scan,fail value,512," \
                    "n = 2^16 - 1,65535,efficient scan,fail value,32768," \
                    "n = 2^20 + 1,1048577,efficient scan,fail value,1048576," \
                    "n = 2^24 + 7,16777223,efficient scan,fail value,16777216," \
                    "all zeros (n = 10000),10000,efficient scan,passed," \
                    "no zeros (n = 10000),10000,efficient scan,fail value,8192," \
                    "negative values (n = 10000),10000,efficient scan,fail value,8192," \
                    "2^20 (the course's),1048576,efficient compact,passed," \
                    "2^20 - 3 (the course's),1048573,efficient compact,fail count," \
                    "n = 2^20 + 1,1048577,efficient compact,fail count," \
                    "n = 2^24 + 7,16777223,efficient compact,fail count," \
                    "all zeros (n = 10000),10000,efficient compact,passed,"; do
          expect "$dir/rows" "$line"
        done
        ;;
      gpu-faults)
        [ "$status" -eq 1 ] || fail "grade exit $status, expected 1"
        # A launch error is not sticky: every case fails with it and the next one runs.
        expect "$dir/rows" "n = 1,1,naive scan,passed,"
        count "$dir/rows" ",naive scan,crashed," 16
        # (The launch's error: "invalid configuration argument", or "invalid argument" as
        # CUDA 13 on the H200 names a block of 2048 threads.)
        count "$dir/rows" "a CUDA call of the implementation failed: invalid" 16
        # A fault is: its case fails, and every later GPU case is not run, with one line.
        expect "$dir/rows" "2^20 (the course's),1048576,efficient scan,crashed,"
        count "$dir/rows" ",efficient scan,not run," 16
        count "$dir/rows" ",efficient compact,not run," 17
        count "$dir/rows" ",thrust scan,not offered,," 17
        if grep -q ",not run after the GPU fault" "$dir/rows"; then echo "ok: not run after the fault"; else
          fail "no case not run after the GPU fault"; fi
        ;;
    esac
    ;;
  explain)
    # tests/fixtures/timer-includes-malloc with --explain: its timers bracket cudaMalloc, the
    # copies and cudaFree, and the block under each of its GPU tests says so. Exit 77
    # (skipped) without a CUDA device, or where CUPTI cannot trace (another tool holds it).
    run --size 2^22 --backends student-naive,student-efficient --explain --reps 3
    if grep -qF "    skipped: no CUDA device" "$dir/out"; then echo "skipped: no CUDA device"; exit 77; fi
    if grep -qF "    explain: unavailable:" "$dir/out"; then
      echo "skipped: $(grep -m 1 -F "explain: unavailable:" "$dir/out")"
      exit 77
    fi
    [ "$status" -eq 1 ] || fail "course run exit $status, expected 1 (no efficient compact)"
    count "$dir/out" "      traced: " 4
    count "$dir/out" ", the implementation's timer, its first to its last cudaEventRecord" 4
    count "$dir/out" "      runtime calls: 3 cudaMalloc " 2
    count "$dir/out" "      runtime calls: 1 cudaMalloc " 2
    count "$dir/out" "    explain: most of the time in 3 cudaMalloc, 2 cudaMemcpy and 3 cudaFree inside the timer (" 2
    count "$dir/out" "    explain: most of the time in 1 cudaMalloc, 2 cudaMemcpy, 2 cudaMemset and 1 cudaFree inside the timer (" 2
    # And a hint under each: what the timer brackets, and what to move out of it.
    count "$dir/out" "    hint: your timer brackets 3 cudaMalloc, 2 cudaMemcpy and 3 cudaFree (" 2
    count "$dir/out" "    hint: your timer brackets 1 cudaMalloc, 2 cudaMemcpy, 2 cudaMemset and 1 cudaFree (" 2
    ;;
  hangs)
    # tests/fixtures/hangs in the course run, each of its tests in a child process: a scan
    # that never returns on the NPOT input is killed after 30 s, a segfault and an exit()
    # fail their tests alone, the run goes on to the project's tests and its summary, and
    # each crash notes the call its src/main.cpp makes before the tests.
    run --size 2^12 --backends cpu,student-cpu
    [ "$status" -eq 1 ] || fail "course run exit $status, expected 1"
    count "$dir/out" "==== student cpu scan, power-of-two ====" 1
    expect "$dir/out" "    FAIL: student-cpu scan did not return within 30 s; killed"
    count "$dir/out" "    FAIL: student-cpu compactWithoutScan crashed: " 2
    # A segfault: SIGSEGV, or under AddressSanitizer its report and exit status.
    expectMatch "$dir/out" "compactWithoutScan crashed: SIGSEGV \(segmentation fault\)|AddressSanitizer: SEGV" "segfault"
    count "$dir/out" "    FAIL: student-cpu compactWithScan crashed: the process exited with status 1 during the call" 2
    count "$dir/out" "compactWithScan: setup was not run (n = 409" 2
    count "$dir/out" "    note: your src/main.cpp calls StreamCompaction::CPU::prepareBuffers() before the tests; the harness does not run main.cpp" 5
    count "$dir/out" "==== cpu sort, non-power-of-two ====" 1
    # The project's CPU: 5 operations x 2; the submission's scan on the power of two.
    if tail -n 1 "$dir/out" | grep -qx "11 passed, 5 failed, 0 skipped"; then echo "ok: summary"; else
      fail "last line: $(tail -n 1 "$dir/out")"; fi
    # explain runs a submission's calls in a child process: the segfault ends the child,
    # and the command names the back end it was in; the project's CPU before it is traced.
    "$program" explain --backends cpu,student-cpu --op compact --size 2^12 --trace "$dir/t.json" >"$dir/out" 2>"$dir/err"
    status=$?
    [ "$status" -eq 1 ] || fail "explain exit $status, expected 1"
    expect "$dir/out" "cpu compact, n = 2^12: the call traced after 5 timed ones"
    expect "$dir/out" "trace: $dir/t.json not written: the run ended before it"
    [ -e "$dir/t.json" ] && fail "a crashed explain wrote $dir/t.json"
    expectMatch "$dir/out" "^FAIL: student-cpu compact crashed: (SIGSEGV \(segmentation fault\)|the process exited with status) .*during its calls" "explain's crash line"
    ;;
  base-code)
    # The course's base code: every output still the poison, every count -1. Each test
    # says so; the grade says it once per function, not once per case.
    run --size 2^12 --backends student-cpu,student-naive,student-efficient,student-thrust
    [ "$status" -eq 1 ] || fail "course run exit $status, expected 1"
    stub="wrote nothing: odata still holds the fill 0xCDCDCDCD (-842150451); is this still the course's stub?"
    stubCount="wrote nothing and returned -1: odata still holds the fill 0xCDCDCDCD (-842150451); is this still the course's stub?"
    if grep -q "skipped: no CUDA device" "$dir/out"; then scans=2 compacts=4; else scans=8 compacts=6; fi
    count "$dir/out" "    hint: $stub" "$scans"
    count "$dir/out" "    hint: $stubCount" "$compacts"
    run --grade
    [ "$status" -eq 1 ] || fail "grade exit $status, expected 1"
    for function in "cpu scan" "cpu compactWithoutScan" "cpu compactWithScan"; do
      count "$dir/out" "$function, every case: " 1
    done
    count "$dir/out" "hint: wrote nothing" "$((scans / 2 + compacts / 2))"
    ;;
  cpu-mistakes)
    # A hint for each mistake: an inclusive scan, a compaction wrong only at SIZE - 3, a
    # count one too many; in the course run and, once per function, in the grade.
    run --size 2^12 --backends student-cpu
    [ "$status" -eq 1 ] || fail "course run exit $status, expected 1"
    count "$dir/out" "    hint: looks like an inclusive scan; the course's scan is exclusive (out[0] = 0)" 2
    count "$dir/out" "    hint: fails only at SIZE - 3: check the padding to the next power of two" 1
    count "$dir/out" "    hint: the count is one too many (3029 for 3028): " 1
    count "$dir/out" "    hint: the count is one too many (3028 for 3027): " 1
    count "$dir/out" "    passed" 1
    # The grade's course cases are the course run's inputs at the same seed: the same
    # counts at SIZE and SIZE - 3.
    run --backends student-cpu
    count "$dir/out" "    hint: the count is one too many (786630 for 786629): " 1
    count "$dir/out" "    hint: the count is one too many (786628 for 786627): " 1
    run --grade --backends student-cpu --format csv
    expect "$dir/rows" "2^20 (the course's),1048576,cpu compactWithScan,fail count,,\"expected 786629 elements, got 786630\""
    expect "$dir/rows" "2^20 - 3 (the course's),1048573,cpu compactWithScan,fail count,,\"expected 786627 elements, got 786628\""
    run --grade --backends student-cpu
    expect "$dir/out" "cpu scan, 15 cases: 2^20 (the course's); 2^20 - 3 (the course's); n = 2; ...: FAIL VALUE at 0, the first: a[0] = 5, expected 0; hint: looks like an inclusive scan"
    expect "$dir/out" "cpu compactWithoutScan: hint: fails only at sizes that are not a power of two (n = 1048573, 31, 127, 1000, ...)"
    expect "$dir/out" "cpu compactWithScan, every case: FAIL COUNT, the first: expected 786629 elements, got 786630; hint: the count is one too many"
    if tail -n 1 "$dir/out" | grep -qx "11 passed, 40 failed"; then echo "ok: summary"; else fail "last line: $(tail -n 1 "$dir/out")"; fi
    ;;
  own-main)
    # Passes as its own main.cpp would pass it: harnessSetup() does main()'s setup, and a
    # compaction that zeroes the output past its count passes with a note.
    run --size 2^12 --backends student-cpu
    [ "$status" -eq 0 ] || fail "course run exit $status"
    count "$dir/out" "    passed" 6
    count "$dir/out" "    passed (note: a[" 2
    expect "$dir/out" "was written past the 3028 elements the call returned; the course's main.cpp compares only the elements returned)"
    run --grade --backends student-cpu --format csv
    tally 51 0
    count "$dir/rows" ",cpu compactWithoutScan,passed,,a[" 16
    # pandas reads the grade's CSV with its defaults (where Debian's python3-pandas is).
    if /usr/bin/python3 -c 'import pandas' 2>/dev/null; then
      /usr/bin/python3 -c 'import pandas, sys; t = pandas.read_csv(sys.argv[1])
assert list(t.columns) == ["case", "n", "function", "outcome", "index", "detail", "hint"], list(t.columns)
assert len(t) == 51 and (t["outcome"] == "passed").all() and str(t["n"].dtype) == "int64"' "$dir/out" &&
        echo "ok: pandas reads the grade's CSV" || fail "pandas does not read the grade's CSV"
    fi
    run --grade --backends student-cpu
    count "$dir/out" "cpu compactWithoutScan, 16 cases: " 1
    # explain judges it by the course's rules too.
    run explain --backends student-cpu --op compact --size 2^12
    expect "$dir/out" "student-cpu compact, n = 2^12: the call traced after 5 timed ones"
    count "$dir/out" "; result passed" 1
    ;;
  setup-throws)
    # A harnessSetup() that throws fails every call of the process with what it threw, in
    # the course run (a process per test), the grade (one process) and explain; the
    # project's own back ends run on.
    threw="harnessSetup() threw: cannot open data/input.txt"
    run --size 2^12 --backends cpu,student-cpu
    [ "$status" -eq 1 ] || fail "course run exit $status, expected 1"
    count "$dir/out" "    crashed: student-cpu scan, n = 409" 2
    count "$dir/out" "$threw" 6
    if tail -n 1 "$dir/out" | grep -qx "10 passed, 6 failed, 0 skipped"; then echo "ok: summary"; else
      fail "last line: $(tail -n 1 "$dir/out")"; fi
    run --grade --backends student-cpu --format csv
    [ "$status" -eq 1 ] || fail "grade exit $status, expected 1"
    tally 0 51
    count "$dir/rows" "$threw" 51
    run explain --backends student-cpu --op scan --size 2^12
    [ "$status" -eq 1 ] || fail "explain exit $status, expected 1"
    expect "$dir/err" "student-cpu scan, n = 4096: $threw"
    ;;
  report)
    # The report with --quick: performance.md with its five sections, its tables as GitHub
    # renders them ($GFM_CHECK), the submission's tests in the course's style; without a
    # CUDA device the GPU parts are left out, saying so.
    # A folder an earlier report wrote: none of its data is read again.
    mkdir -p "$dir/perf/data" && echo stale >"$dir/perf/data/blocks.json"
    "$program" report --quick --out "$dir/perf" >"$dir/out" 2>"$dir/err"
    status=$?
    [ "$status" -eq 0 ] || fail "report exit $status: $(cat "$dir/err")"
    grep -qs stale "$dir/perf/data/blocks.json" && fail "an earlier report's data/blocks.json was kept"
    md="$dir/perf/performance.md"
    for heading in "## Performance Analysis" "### 1. Block size optimisation" "### 2. Array size: the GPU against the CPU" \
        "### 3. Bottlenecks" "### 4. Thrust's timeline" "### 5. Test output"; do
      count "$md" "$heading" 1
    done
    expect "$md" "The course submission in "
    expect "$md" "| n | cpu scan |"
    expect "$md" "- **cpu compact**: "
    count "$md" "    passed (note: " 2
    "$GFM_CHECK" "$md" && echo "ok: GitHub renders its tables" || fail "gfm_check: $md"
    [ -s "$dir/perf/data/sizes.json" ] && [ -s "$dir/perf/data/course-run.txt" ] || fail "no data/sizes.json or data/course-run.txt"
    if "$program" --size 4 --backends naive | grep -q "skipped: no CUDA device"; then
      gpu=0
      expect "$dir/out" "left out: the block sizes, the GPU's figures and Thrust's timeline: no CUDA device"
      expect "$md" "Not measured: no CUDA device."
    else
      # Its GPU functions are not offered: the block sizes say so, and Thrust's timeline is
      # the project's, traced (unless another tool holds CUPTI).
      gpu=1
      expect "$md" "Not measured: the naive and work-efficient functions are not offered."
      grep -q "^Not traced (unavailable" "$md" || {
        expect "$md" "The same as a trace: [thrust-scan-timeline.json](thrust-scan-timeline.json)"
        [ -s "$dir/perf/thrust-scan-timeline.json" ] || fail "no thrust-scan-timeline.json"
      }
    fi
    if python3 -c 'import matplotlib' 2>/dev/null || /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then  # as scripts/plot looks
      [ -s "$dir/perf/sizes-scan-time.png" ] || fail "no sizes-scan-time.png"
      expect "$md" "![scan time against array size](sizes-scan-time.png)"
    else
      expect "$dir/out" "python3-matplotlib"
    fi
    # Without a submission: the project's own course back ends, saying so.
    env -u SC_STUDENT_LIBRARY "$program" report --quick --quiet --out "$dir/own" >"$dir/out" 2>"$dir/err" ||
      fail "report without a submission: exit $?: $(cat "$dir/err")"
    expect "$dir/own/performance.md" "These are the project's own course back ends, not a student's"
    if [ "$gpu" -eq 1 ] && ! grep -q "were not traced (unavailable" "$dir/own/performance.md"; then
      expect "$dir/own/performance.md" "- **work-efficient scan**: "
      expect "$dir/own/performance.md" "Traced at 2^22: "
      expect "$dir/own/performance.md" "| block size | naive scan, power-of-two | naive scan, non-power-of-two |"
    fi
    "$GFM_CHECK" "$dir/own/performance.md" || fail "gfm_check: $dir/own/performance.md"
    "$program" report --quick --out >"$dir/out" 2>"$dir/err"
    [ $? -eq 2 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] && echo "ok: $(cat "$dir/err")" || fail "report --out without a folder"
    ;;
  student-dir)
    # STUDENT= (make) and SC_STUDENT_DIR (CMake) naming a folder without stream_compaction/:
    # one line naming what was expected, exit 2 from make, and nothing configured or built.
    root=$(cd "$(dirname "$0")/.." && pwd)
    wrong="$root/tests/fixtures"
    make --no-print-directory -n -C "$root" run STUDENT="$wrong" >"$dir/out" 2>"$dir/err"
    status=$?
    if [ "$status" -eq 2 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] && [ ! -s "$dir/out" ]; then
      echo "ok: make -> $(cat "$dir/err")"
    else
      fail "make STUDENT=$wrong: exit $status, $(wc -l <"$dir/err") lines on stderr, $(wc -l <"$dir/out") on stdout"
    fi
    expect "$dir/err" "STUDENT=$wrong has no stream_compaction/ folder; give the root of your course project"
    # A path long enough that CMake would wrap the message: it stays one line.
    wrong="$dir/a-course-project-folder-whose-long-name-has-no-stream-compaction-folder"
    mkdir -p "$wrong"
    cmake -S "$root" -B "$dir/build" -DSC_STUDENT_DIR="$wrong" >"$dir/out" 2>"$dir/err" && fail "cmake configured"
    expect "$dir/err" "SC_STUDENT_DIR=$wrong has no stream_compaction/ folder; give the root of a course project"
    [ -e "$dir/build/build.ninja" ] || [ -e "$dir/build/Makefile" ] && fail "cmake generated a build"
    ;;
  *)
    echo "unknown check $check"
    exit 2
    ;;
esac

if [ "$failed" -ne 0 ]; then
  echo "--- stdout"; cat "$dir/out"; echo "--- stderr"; cat "$dir/err"
fi
exit "$failed"
