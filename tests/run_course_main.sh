#!/bin/sh
# Runs the course-style main.cpp: fails on a crash, on any FAIL line, and unless every one
# of its six CPU tests (two scans, four compactions) says "passed"; its GPU tests run only
# where there is a CUDA device.
output=$("$1" 2>&1)
status=$?
printf '%s\n' "$output"
[ "$status" -eq 0 ] || exit "$status"
case "$output" in
  *FAIL*) exit 1 ;;
esac
cpu_passed=$(printf '%s\n' "$output" | grep -A1 '^==== cpu ' | grep -c '^    passed$')
if [ "$cpu_passed" -ne 6 ]; then
  echo "run_course_main.sh: $cpu_passed of the 6 CPU tests passed"
  exit 1
fi
exit 0
