#!/bin/sh
# SIGINT and SIGTERM during a sweep: the program exits 130 or 143, and the CSV, JSON and
# markdown it was writing hold every finished row and read back whole.
# Usage: run_interrupt_check.sh path/to/cis565_stream_compaction
program="$1"
. "$(dirname "$0")/check_helpers.sh"

for signal in INT TERM; do
  # A CPU-only sweep long enough to be stopped in the middle.
  "$program" --backends cpu --ops scan,compact,sort --sizes 2^16:2^26 --reps 3 --quiet --format csv \
    --output "$dir/$signal.csv" --output "$dir/$signal.json" --output "$dir/$signal.md" >"$dir/$signal.out" 2>"$dir/$signal.err" &
  pid=$!
  # Wait for the first finished row, however long the machine takes to write it, then
  # stop the sweep; it must still be running (its largest cells take seconds).
  waited=0
  until grep -q ',scan,' "$dir/$signal.csv" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      fail "SIG$signal: the sweep ended before writing a row"; continue 2
    fi
    if [ "$waited" -ge 6000 ]; then
      fail "SIG$signal: no finished row after 600 s"; kill "$pid"; wait "$pid"; continue 2
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  if ! kill -0 "$pid" 2>/dev/null; then
    fail "SIG$signal: the sweep finished before it could be stopped"; continue
  fi
  kill -s "$signal" "$pid"
  wait "$pid"
  status=$?
  expected=130
  [ "$signal" = TERM ] && expected=143
  if [ "$status" -ne "$expected" ]; then
    fail "SIG$signal -> exit $status, expected $expected"; continue
  fi
  python3 - "$dir/$signal" <<'PY' || failed=1
import csv, json, re, sys
base = sys.argv[1]
rows = list(csv.reader(open(base + ".csv", newline="")))
header, data = rows[0], rows[1:]
assert data, "no finished rows in the CSV"
assert all(len(r) == len(header) for r in data), "a CSV row is cut short"
report = json.load(open(base + ".json"))
assert len(report["rows"]) == len(data), (len(report["rows"]), len(data))
assert all(r["verified"] == "passed" for r in report["rows"]), "a row that did not pass"
assert report["complete"] is False, "the JSON of a stopped sweep is not marked incomplete"
assert report["stopped"] == "stopped by SIG" + base.rsplit("/", 1)[1], report["stopped"]
markdown = open(base + ".md").read()
# The finished rows' table, not the command line that the context quotes.
assert re.search(r"^### scan$", markdown, re.M), "no scan table heading in the markdown"
assert re.search(r"^\| 2\^\d+ ", markdown, re.M), "no data row in the markdown's scan table"
assert markdown.rstrip().endswith("the tables hold the cells finished before it.**"), "the markdown does not say it is cut short"
print(f"ok: {base.rsplit('/', 1)[1]}: {len(data)} finished rows in CSV and JSON")
PY
  grep -q "stopped by SIG$signal" "$dir/$signal.err" || fail "no message on stderr"
done

# With --processes 2, SIGINT to the parent alone (not to its process group) while its
# child runs the sweep: the parent passes it on, the child stops, and the parent exits
# 130 with an incomplete report, no child left running and no report left behind.
mkdir "$dir/tmp"
long="--backends cpu --ops scan,compact,sort --sizes 2^16:2^26 --reps 3 --quiet --processes 2"

# start_sweep REPORT OUT ERR [report]: starts the sweep in two processes writing REPORT
# (stdout to OUT, stderr to ERR) and sets $parent and $child; with "report" it then waits
# for the child's report to begin. Without a child in 60 s it fails, ends the parent and
# returns 1.
start_sweep() {
  TMPDIR="$dir/tmp" "$program" $long --output "$1" >"$2" 2>"$3" &
  parent=$!
  child=$(wait_for_child "$parent")
  [ "${4:-}" = report ] && wait_for_report "$dir/tmp"
  [ -n "$child" ] && return 0
  fail "--processes 2: no child process seen in 60 s"; kill "$parent"; wait "$parent"
  return 1
}

# The child has its signal handlers once its report has begun.
if start_sweep "$dir/p.json" "$dir/p.out" "$dir/p.err" report; then
  kill -s INT "$parent"
  # The child's whole sweep takes far longer: the parent must pass the signal on.
  wait_for_exit "$parent" 100
  kill -0 "$parent" 2>/dev/null && fail "--processes 2: still running 10 s after SIGINT"
  wait "$parent"
  status=$?
  [ "$status" -eq 130 ] || fail "--processes 2: SIGINT -> exit $status, expected 130"
  sleep 0.5
  if kill -0 "$child" 2>/dev/null; then
    fail "--processes 2: the child is still running after the parent stopped"; kill -KILL "$child"
  fi
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
sys.exit(d["complete"] is not False or d["stopped"] != "stopped by SIGINT")' "$dir/p.json" ||
    fail "--processes 2: the JSON is not marked stopped by SIGINT"
  grep -q "stopped by SIGINT while process 1 of 2 ran" "$dir/p.err" || fail "--processes 2: not the message of a stop during a child: $(cat "$dir/p.err")"
  [ -z "$(ls "$dir/tmp")" ] || fail "--processes 2: a report was left behind: $(ls "$dir/tmp")"
  echo "ok: --processes 2: SIGINT to the parent stops its child, exit 130"
fi

# A child that does not stop (here held by SIGSTOP) is killed 10 s after the parent
# passed the signal on; and a child whose parent dies ends too.
if start_sweep "$dir/s.json" /dev/null "$dir/s.err"; then
  kill -s STOP "$child"
  kill -s INT "$parent"
  wait_for_exit "$parent" 300
  if kill -0 "$parent" 2>/dev/null; then
    fail "--processes 2: a stopped child still held the parent 30 s after SIGINT"; kill -KILL "$child" "$parent"
  elif [ "$waited" -lt 90 ]; then
    fail "--processes 2: the parent ended $waited tenths of a second after SIGINT, before the 10 s grace"
  else
    echo "ok: --processes 2: a child that did not stop was killed, the parent ended $waited tenths of a second after SIGINT"
  fi
  wait "$parent"
fi
# The child asks to end with its parent before its report begins.
if start_sweep "$dir/d.json" /dev/null /dev/null report; then
  kill -KILL "$parent"
  wait "$parent" 2>/dev/null
  wait_for_exit "$child" 100
  if kill -0 "$child" 2>/dev/null; then
    fail "--processes 2: the child runs on 10 s after its parent was killed"; kill -KILL "$child"
  else
    echo "ok: --processes 2: the child ended with its killed parent"
  fi
fi
exit $failed
