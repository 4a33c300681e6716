# Sourced by the tests' shell checks: $dir, a scratch folder removed on exit, and fail,
# which prints a failure and sets $failed, the status the check exits with.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0

fail() {
  echo "FAIL: $*"
  failed=1
}

# wait_for_child PARENT: prints the pid of a child process of PARENT, waiting up to 60 s
# for one to appear (from /proc: a stat line's fourth field is the parent's pid); prints
# nothing if none does.
wait_for_child() {
  of=$1
  waited=0
  while [ "$waited" -lt 600 ]; do
    for stat in /proc/[0-9]*/stat; do
      set -- $(cat "$stat" 2>/dev/null)
      [ "${4:-}" = "$of" ] || continue
      echo "$1"
      return
    done
    sleep 0.1
    waited=$((waited + 1))
  done
}

# wait_for_report DIR: waits up to 60 s for a file in DIR (a TMPDIR given to a sweep
# in several processes) to have content: a child whose report has begun.
wait_for_report() {
  waited=0
  until [ -n "$(cat "$1"/* 2>/dev/null)" ] || [ "$waited" -ge 600 ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
}

# wait_for_exit PID TENTHS: waits while PID runs, up to TENTHS tenths of a second; leaves
# in $waited how many tenths it waited.
wait_for_exit() {
  waited=0
  while kill -0 "$1" 2>/dev/null && [ "$waited" -lt "$2" ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
}
