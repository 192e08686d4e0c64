#!/usr/bin/env bash
# CLI golden tests: each tests/golden/<tool>/<case>.cmd holds one shell
# command line; <case>.expected holds its exact stdout, stderr and exit code.
# Run from the workspace root (Bazel's sh_test does) with the rp binaries
# under cmd/ or bazel-bin/cmd/.
#
#   tests/golden/run_golden.sh            # compare, fail on any difference
#   tests/golden/run_golden.sh --update   # rewrite the .expected files
#                                         # (make golden does this)
set -u
update=0
[ "${1:-}" = "--update" ] && update=1

root=$(pwd)
bindirs=""
for d in "$root"/cmd/*/ "$root"/bazel-bin/cmd/*/; do
  [ -d "$d" ] && bindirs="$bindirs:${d%/}"
done
export PATH="${bindirs#:}:$PATH"
export LC_ALL=C

run_case() {
  local cmd_file=$1
  local out err rc
  out=$(mktemp) err=$(mktemp)
  (cd "$root" && bash -c "$(cat "$cmd_file")" >"$out" 2>"$err" </dev/null)
  rc=$?
  {
    echo "# exit: $rc"
    echo "# stdout:"
    cat "$out"
    echo "# stderr:"
    cat "$err"
  }
  rm -f "$out" "$err"
}

failed=0
total=0
for cmd_file in "$root"/tests/golden/*/*.cmd; do
  total=$((total + 1))
  expected="${cmd_file%.cmd}.expected"
  actual=$(run_case "$cmd_file")
  if [ $update = 1 ]; then
    printf '%s\n' "$actual" >"$expected"
  elif ! diff -u "$expected" <(printf '%s\n' "$actual") >/tmp/golden-diff.$$ 2>&1; then
    failed=$((failed + 1))
    echo "FAIL ${cmd_file#$root/}: $(cat "$cmd_file")"
    cat /tmp/golden-diff.$$
  fi
done
rm -f /tmp/golden-diff.$$
if [ $update = 1 ]; then
  echo "updated $total golden files"
  exit 0
fi
echo "$((total - failed))/$total golden cases pass"
[ $failed = 0 ]
