# Sourced by the tests' shell checks: $dir, a scratch folder removed on exit, and fail,
# which prints a failure and sets $failed, the status the check exits with.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0

fail() {
  echo "FAIL: $*"
  failed=1
}
