#!/usr/bin/env bash
# MCP conformance: builds the server, starts it on a free port with a throwaway embedded
# database (or DATABASE_URL when set), runs the official conformance suite against /mcp with
# the baseline in expected-failures.yml, and stops the server.
#   bash test/conformance/run.sh            # whole active suite
#   bash test/conformance/run.sh --scenario ping
# The suite needs Node 22; npx fetches it for that one command. Set
# COGITAVE_CONFORMANCE_SKIP_BUILD=1 to reuse an existing dist/.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

if [[ "${COGITAVE_CONFORMANCE_SKIP_BUILD:-}" != 1 ]]; then
  npm run build >&2
fi

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

COGITAVE_DATA_DIR="$work/data" COGITAVE_HTTP_HOST=127.0.0.1 COGITAVE_HTTP_PORT=0 LOG_LEVEL=info \
  node "$root/dist/bin/cogitave.js" serve --http 2>"$log" >/dev/null &
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
    echo "cogitave serve exited before it was ready:" >&2
    cat "$log" >&2
    exit 1
  fi
  sleep 0.5
done
if [[ -z "$url" ]]; then
  echo "cogitave serve was not ready within 120 s" >&2
  tail -n 20 "$log" >&2
  exit 1
fi
echo "conformance against $url" >&2

npx --yes -p node@22 -p @modelcontextprotocol/conformance@0.1.16 -- \
  conformance server --url "$url" \
  --expected-failures "$root/test/conformance/expected-failures.yml" "$@"
