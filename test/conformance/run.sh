#!/usr/bin/env bash
# MCP conformance: starts the test-only composition (server.ts: the product's gateway plus the
# suite's fixtures) on a free port with a throwaway embedded database (or DATABASE_URL when
# set), runs the official suite (`--suite all`) once per protocol revision and once for the
# extension scenarios, against the baseline in expected-failures.yml, prints the scenario ×
# revision table and stops the server.
#   bash test/conformance/run.sh                 # everything
#   bash test/conformance/run.sh --scenario ping # one scenario, every revision it has
# The suite needs Node 22; npx fetches it for those commands. When that download is not
# possible the run is skipped: the script says so and exits 3.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

CONFORMANCE_VERSION=0.2.0-alpha.12
REVISIONS=(2025-11-25 2026-07-28)

work=$(mktemp -d)
log="$work/serve.log"
server_pid=
cleanup() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

suite() {
  npx --yes -p node@22 -p "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" -- conformance "$@"
}

# The suite (and Node 22) come from the npm registry; without it there is nothing to run.
if ! scenarios=$(suite list --server 2>"$work/npx.log"); then
  echo "conformance skipped: could not fetch node@22 and @modelcontextprotocol/conformance@$CONFORMANCE_VERSION with npx:" >&2
  tail -n 5 "$work/npx.log" >&2
  exit 3
fi
mapfile -t extensions < <(sed -n 's/^ *- \([a-z0-9-]*\) \[extension\]$/\1/p' <<<"$scenarios")

COGITAVE_DATA_DIR="$work/data" COGITAVE_HTTP_HOST=127.0.0.1 COGITAVE_HTTP_PORT=0 \
  LOG_LEVEL="${LOG_LEVEL:-info}" "$root/node_modules/.bin/tsx" "$root/test/conformance/server.ts" \
  2>"$log" >/dev/null &
server_pid=$!

url=
for _ in $(seq 1 240); do
  url=$(node -e '
    const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n");
    for (const line of lines) {
      try { const l = JSON.parse(line); if (l.msg === "cogitave ready") { console.log(l.mcp); break; } } catch {}
    }' "$log")
  [[ -n "$url" ]] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "the conformance server exited before it was ready:" >&2
    cat "$log" >&2
    exit 1
  fi
  sleep 0.5
done
if [[ -z "$url" ]]; then
  echo "the conformance server was not ready within 120 s" >&2
  tail -n 20 "$log" >&2
  exit 1
fi
echo "conformance $CONFORMANCE_VERSION against $url" >&2

status=0
baseline="$root/test/conformance/expected-failures.yml"
for revision in "${REVISIONS[@]}"; do
  echo "== revision $revision" >&2
  suite server --url "$url" --suite all --spec-version "$revision" \
    --expected-failures "$baseline" -o "$work/results/$revision" "$@" >"$work/$revision.log" 2>&1 ||
    status=1
  sed -n '/=== SUMMARY ===/,$p' "$work/$revision.log" >&2
done
if [[ $# -eq 0 ]]; then
  echo "== extensions" >&2
  for scenario in "${extensions[@]}"; do
    suite server --url "$url" --scenario "$scenario" --expected-failures "$baseline" \
      -o "$work/results/extension" >>"$work/extension.log" 2>&1 || status=1
  done
fi

"$root/node_modules/.bin/tsx" "$root/test/conformance/report.ts" "$work/results" "$baseline"
if [[ $status -ne 0 ]]; then
  echo "conformance: unexpected results (see above); the server log ends:" >&2
  tail -n 20 "$log" >&2
fi
exit $status
