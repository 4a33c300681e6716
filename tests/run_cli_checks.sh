#!/bin/sh
# The real program's command line: every bad flag prints one line on stderr and nothing
# on stdout, and exits 2; a small CPU-only sweep writes markdown, CSV and JSON that read
# back whole; the progress line shows on a terminal, but not with --quiet.
# Usage: run_cli_checks.sh path/to/cis565_stream_compaction
program="$1"
. "$(dirname "$0")/check_helpers.sh"

bad() {
  "$program" "$@" >"$dir/out" 2>"$dir/err"
  status=$?
  lines=$(wc -l <"$dir/err")
  if [ "$status" -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$dir/out" ]; then
    fail "$* -> exit $status, $lines lines on stderr"
  else
    echo "ok: $* -> $(cat "$dir/err")"
  fi
}

bad --sizes 2^20:2^10
bad --sizes 0
bad --sizes -5
bad --sizes 2^34
bad --size 2^31
bad --sizes 1000:2^20
bad --block-sizes 100
bad --block-sizes 2048
bad --backends cpu,gpu --sizes 2^10
bad --ops scan,reduce
bad --keep mod:0
bad --format html
bad --output results.dat
bad --frobnicate
bad --sizes 2^8 --backends cpu --output "$dir/no-such-dir/r.csv"

"$program" --sizes 2^8:2^10 --backends cpu --reps 2 --format markdown \
  --output "$dir/r.csv" --output "$dir/r.json" >"$dir/r.md" 2>"$dir/r.err" || fail "the sweep exited $?"
[ "$(cat "$dir/r.err")" = "24 cells verified, 0 failed, 0 skipped" ] ||
  fail "the sweep's summary on stderr is not '24 cells verified, 0 failed, 0 skipped': $(cat "$dir/r.err")"
grep -q 'cells verified' "$dir/r.md" && fail "the summary is in the report on stdout"
grep -q '^| size |' "$dir/r.md" || fail "no markdown table on stdout"
# A header and 4 ops x 6 inputs (2^8, 2^9, 2^10 and their companions).
records=$(wc -l <"$dir/r.csv")
[ "$records" -eq 25 ] || fail "the CSV has $records records, not 25"
head -n 1 "$dir/r.csv" | grep -q '^run_id,date,gpu,mode,op,' || fail "the CSV's first line is not its header"
grep -q '"copy_bandwidth_GBps": ' "$dir/r.context.json" || fail "the CSV's context file has no copy bandwidth"
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json, sys; rows = json.load(open(sys.argv[1]))["rows"]; sys.exit(len(rows) != 24)' \
    "$dir/r.json" || fail "the JSON does not parse to 24 rows"
else
  fail "python3 is needed to check the JSON report, and is not on PATH"
fi

# --processes 3 with --rounds 2 and --reps 3: two child processes run the sweep before
# this one, each writing an ordinary JSON report, and every row pools the three
# processes' figures of 2 rounds of 3 calls; the children leave no file behind and print
# nothing; a child that is killed ends the sweep with one line naming it.
bad --processes 0
bad --processes 65
# The children's reports go to a folder of this check's own (other tests may run beside
# it), which must be empty when the sweeps end.
mkdir "$dir/tmp"
TMPDIR="$dir/tmp" "$program" --sizes 2^8,2^10 --no-npot --backends cpu --ops scan,compact --reps 3 --rounds 2 --processes 3 \
  --output "$dir/p.csv" >"$dir/p.txt" 2>"$dir/p.err" || fail "the sweep in 3 processes exited $?: $(cat "$dir/p.err")"
[ "$(cat "$dir/p.err")" = "4 cells verified, 0 failed, 0 skipped" ] ||
  fail "the sweep in 3 processes printed on stderr: $(cat "$dir/p.err")"
python3 - "$dir/p.csv" <<'PY' || fail "the sweep in 3 processes did not pool 3 processes of 2 rounds of 3 calls a row"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 4, len(rows)
for r in rows:
    assert r["verified"] == "passed", r
    assert r["samples"] == "18", r["samples"]
    assert r["rounds"] == "3", r["rounds"]
    assert r["round_spread_pct"] != "", r
    assert "3 processes of 2 rounds: medians " in r["note"], r["note"]
PY
# The context says how many processes measured each figure.
python3 - "$dir/p.context.json" <<'PY' || fail "the context of the sweep in 3 processes does not say 3 processes"
import json, sys
context = json.load(open(sys.argv[1]))
assert context["processes"] == 3, context["processes"]
PY
grep -q 'in each of 3 processes, one after another' "$dir/p.txt" ||
  fail "the report's sampling line does not say how the processes make a figure"
[ -z "$(ls "$dir/tmp")" ] || fail "a child's report was left behind: $(ls "$dir/tmp")"
TMPDIR="$dir/tmp" "$program" --sizes 2^16:2^26 --backends cpu --ops scan,compact,sort --reps 3 --quiet --processes 3 \
  --output "$dir/k.json" >"$dir/k.out" 2>"$dir/k.err" &
parent=$!
child=$(wait_for_child "$parent")
if [ -z "$child" ]; then
  fail "no child process of --processes 3 seen in 60 s"; kill "$parent"; wait "$parent"
else
  kill -KILL "$child"
  wait "$parent"
  status=$?
  [ "$status" -eq 1 ] || fail "a killed child -> exit $status, expected 1"
  [ "$(cat "$dir/k.err")" = "cis565_stream_compaction: error: process 1 of 3 ended before its sweep did (signal 9)" ] ||
    fail "a killed child -> '$(cat "$dir/k.err")'"
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(d["complete"] is not False or len(d["rows"]) > 0)' \
    "$dir/k.json" || fail "the JSON of a sweep whose child was killed is not an incomplete report with no rows"
  echo "ok: a child killed by SIGKILL -> $(cat "$dir/k.err")"
fi
[ -z "$(ls "$dir/tmp")" ] || fail "the report of a killed child was left behind: $(ls "$dir/tmp")"


# compare: the sweep's JSON against its own CSV matches every row, and each is the same;
# --help names the subcommand; bad input is one line and exit 2.
"$program" --help | grep -q 'compare BASE NEW' || fail "--help does not list compare"
"$program" compare "$dir/r.json" "$dir/r.csv" --format json --fail-above 0% >"$dir/c.json" 2>"$dir/c.err" ||
  fail "compare of a report with itself exited $?: $(cat "$dir/c.err")"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(len(d["rows"]) != 24 or
  any(r["verdict"] != "same" for r in d["rows"]))' "$dir/c.json" ||
  fail "compare's JSON does not hold 24 rows, each the same"
"$program" compare "$dir/r.json" "$dir/r.json" --format markdown | grep -q '^| op | back end |' ||
  fail "compare --format markdown has no table"
bad compare "$dir/r.json"
bad compare "$dir/r.json" "$dir/missing.json"
bad compare "$dir/r.json" "$dir/r.md"
bad compare "$dir/r.json" "$dir/r.csv" --fail-above 5
bad compare "$dir/r.json" "$dir/r.csv" --format html

# explain: --help names the subcommand; bad input is one line and exit 2, with nothing run;
# --explain in the course run and a sweep puts a line or a column under each CPU figure.
"$program" --help | grep -q 'explain --backends NAMES --op OP' || fail "--help does not list explain"
bad explain --op scan
bad explain --backends thrust
bad explain --backends thrus --op scan
bad explain --backends naive --op sort
bad explain --backends cpu --op scan --size 0
bad explain --backends cpu --op scan --trace "$dir/t.txt"
bad explain --backends cpu --op scan --frobnicate
bad --grade --explain
"$program" explain --help | grep -q '^usage: cis565_stream_compaction explain' || fail "explain --help has no usage line"
# Untraced (no CUDA device, or CUPTI held by another tool): exit 3, saying why, no trace
# file; traced: exit 0 and a trace whose kernels Perfetto would show.
"$program" explain --backends naive --op scan --size 2^10 --trace "$dir/t.json" >"$dir/explain-one.out" 2>&1
status=$?
if grep -q '^verdict: unavailable: ' "$dir/explain-one.out"; then
  [ "$status" -eq 3 ] || fail "explain with nothing traced exited $status, not 3"
  [ -e "$dir/t.json" ] && fail "explain with nothing traced wrote a trace"
  grep -q "^trace: $dir/t.json not written: no call was traced$" "$dir/explain-one.out" || fail "explain does not say the trace was not written"
else
  [ "$status" -eq 0 ] || fail "explain exited $status: $(cat "$dir/explain-one.out")"
  python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["traceEvents"]; sys.exit(not any(
    x.get("ph") == "X" and x.get("cat") == "kernel" for x in e))' "$dir/t.json" || fail "the trace holds no kernel"
fi
"$program" --size 2^8 --backends cpu --reps 1 --explain >"$dir/explain.out" || fail "the course run with --explain exited $?"
count=$(grep -c '^    explain: host only: a CPU back end launches no GPU work (not traced)$' "$dir/explain.out")
[ "$count" -eq 10 ] || fail "the course run with --explain has $count explain lines under the CPU's 10 tests"
"$program" --sizes 2^8 --backends cpu --ops scan --reps 1 --explain --format csv >"$dir/explain.csv" ||
  fail "a sweep with --explain exited $?"
head -n 1 "$dir/explain.csv" | grep -q ',kernels,kernel_ms,between_ms,traced_ms,explain,' ||
  fail "a sweep's CSV has no explain columns"
[ "$(grep -c ',host only: a CPU back end launches no GPU work (not traced),' "$dir/explain.csv")" -eq 2 ] ||
  fail "a CPU sweep's rows do not say host only"

# Every cell skipped (32-bit naive past 2^31 - 1, on any machine): exit 3, saying so.
"$program" --sizes 2^32 --backends naive --ops scan --no-npot --format csv >"$dir/none.csv" 2>"$dir/none.err"
status=$?
[ "$status" -eq 3 ] || fail "a sweep whose every cell is skipped exited $status, not 3"
[ "$(cat "$dir/none.err")" = "0 cells verified, 0 failed, 1 skipped" ] ||
  fail "a sweep whose every cell is skipped said: $(cat "$dir/none.err")"

# --help lists the exit statuses.
"$program" --help | grep -q '^Exit status: 0 every test or cell verified' || fail "--help does not list the exit statuses"
"$program" --help | grep -q '3 nothing could run' || fail "--help does not list exit status 3"

# The course run ends with its summary line.
"$program" --size 2^8 --backends cpu --reps 1 >"$dir/course.out" || fail "the course run exited $?"
[ "$(tail -n 1 "$dir/course.out")" = "10 passed, 0 failed, 0 skipped" ] ||
  fail "the course run's last line is not its summary: $(tail -n 1 "$dir/course.out")"

# Lines reach a pipe as they are printed: the course run's first line comes through a
# FIFO while the program still runs (block-buffered, it would come at the end).
mkfifo "$dir/lines"
"$program" --size 2^24 --backends cpu >"$dir/lines" 2>/dev/null &
course=$!
exec 3<"$dir/lines"
IFS= read -r first <&3
if kill -0 "$course" 2>/dev/null; then echo "ok: a line through a pipe before the run ends: $first"; else
  fail "the course run's first line came through a pipe only when it ended"; fi
kill "$course" 2>/dev/null
wait "$course"
exec 3<&-

# A report that cannot be written (a full disk) is an error of one line naming the file
# and why, exit status 1; the report on stdout still gets its ending, so its JSON
# parses. The disk fills at 512 bytes, from a file-size limit (ulimit -f 1, with SIGXFSZ
# ignored so that the write fails instead of killing the program), which any Linux
# shell can set; stdout goes through a pipe, which the limit does not bound.
(
  trap '' XFSZ
  ulimit -f 1
  "$program" --sizes 2^8 --backends cpu --ops scan --format json --output "$dir/full.json" 2>"$dir/err"
  echo $? >"$dir/full-status"
) | cat >"$dir/full-out.json"
status=$(cat "$dir/full-status")
lines=$(wc -l <"$dir/err")
if [ "$status" -ne 1 ] || [ "$lines" -ne 1 ] || ! grep -q "cannot write '$dir/full.json': File too large" "$dir/err"; then
  fail "a sweep whose report cannot be written -> exit $status, stderr: $(cat "$dir/err")"
else
  echo "ok: a full disk -> $(cat "$dir/err")"
fi
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$dir/full-out.json" ||
    fail "stdout's JSON report was left unended after the write error"
fi

# The progress line, on a terminal only: under a pseudo-terminal (util-linux `script`)
# the sweep rewrites "[k/m] what is running" in place on stderr, and with --quiet writes
# none of it. Both runs must still print the report.
if command -v script >/dev/null 2>&1; then
  esc=$(printf '\033')
  script -qec "'$program' --sizes 2^8 --backends cpu --ops scan" /dev/null >"$dir/tty.out" 2>&1 \
    || fail "the sweep under a pseudo-terminal exited $?"
  script -qec "'$program' --sizes 2^8 --backends cpu --ops scan --quiet" /dev/null >"$dir/tty-quiet.out" 2>&1 \
    || fail "the --quiet sweep under a pseudo-terminal exited $?"
  for out in tty tty-quiet; do
    grep -q 'scan: median time' "$dir/$out.out" || fail "no report from the sweep under a pseudo-terminal ($out)"
  done
  grep -qE "\[K\[1/2, 0:[0-9]{2} elapsed\] cpu scan 2\^8" "$dir/tty.out" || fail "no progress line with the elapsed time on a terminal"
  grep -qE "\[2/2, 0:[0-9]{2} elapsed, about 0:[0-9]{2} left\] cpu scan 2\^8 - 3" "$dir/tty.out" || fail "no estimate of the time left on a terminal"
  if grep -qF "${esc}[K" "$dir/tty-quiet.out" || grep -qF "[1/2]" "$dir/tty-quiet.out"; then
    fail "a progress line on a terminal despite --quiet"
  fi
else
  fail "util-linux 'script' is needed to check the progress line under a pseudo-terminal, and is not on PATH"
fi

[ "$failed" -eq 0 ] && echo "all command-line checks passed"
exit "$failed"
