#!/bin/sh
# A course submission (tests/fixtures/), built apart as STUDENT=DIR builds one, run by
# the real program through SC_STUDENT_LIBRARY.
# Usage: run_submission_checks.sh CHECK path/to/cis565_stream_compaction path/to/libsc_submission.so
#   cpu      the student-cpu functions pass the course run and a sweep, timed by the implementation
#   crashes  tests/fixtures/crashes: a thrown exception fails its test and the run goes on;
#            the functions it lacks read "not offered"
#   broken   a submission that did not compile: its first errors with file and line, then
#            the project's own back ends run; exit status 1
# Exit 77 (skipped) is used by the GPU checks of the grade (see run_grade_checks.sh).
check="$1"
program="$2"
SC_STUDENT_LIBRARY="$3"
export SC_STUDENT_LIBRARY
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0

fail() {
  echo "FAIL: $*"
  failed=1
}

# expect FILE TEXT: FILE holds TEXT (a fixed string).
expect() {
  if grep -qF -- "$2" "$1"; then echo "ok: $2"; else fail "no '$2' in $1"; fi
}

# count FILE TEXT N: TEXT (fixed) is on exactly N lines of FILE.
count() {
  found=$(grep -cF -- "$2" "$1")
  if [ "$found" -eq "$3" ]; then echo "ok: $3 x '$2'"; else fail "$found x '$2' in $1, expected $3"; fi
}

# status COMMAND...: runs the program, stdout to $dir/out, stderr to $dir/err; sets $status.
run() {
  "$program" "$@" >"$dir/out" 2>"$dir/err"
  status=$?
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
      if grep -q "^$row,.*,passed,timed by the implementation" "$dir/out"; then echo "ok: $row"; else fail "$row"; fi
    done
    # The project's CPU is the baseline of "x cpu", never the submission's.
    if grep -q "^scan,cpu,4096,false,.*,passed," "$dir/out"; then echo "ok: cpu row"; else fail "cpu row"; fi
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
    if grep -qE "fixtures/does-not-compile/stream_compaction/naive\.cu\(23\): error" "$dir/err"; then
      echo "ok: the error's file and line"
    else
      fail "no naive.cu(23) error on stderr"
    fi
    # The project's CPU: scan, compact without and with scan, partition, sort, each twice.
    count "$dir/out" "    passed" 10
    # The submission's: cpu scan, compact without and with scan, naive scan.
    count "$dir/out" "not offered: the submission did not build (see above)" 4
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
