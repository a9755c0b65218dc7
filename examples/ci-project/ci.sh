#!/bin/sh
# The CI of a project that uses settlement-sandbox (docs/ci.md explains each step). Plain POSIX shell: the
# GitHub Actions workflow in docs/ci.md runs the same steps.
#   SANDBOX_UP_FLAGS   extra flags for `up` (e.g. "--chain-ports any" when 8545/8546 are taken)
set -eu
# The package's binary, called directly: `npx` would add its own start-up to every call.
sandbox=./node_modules/.bin/settlement-sandbox
mkdir -p reports

# shellcheck disable=SC2086 # the flags are meant to split
$sandbox up --detach ${SANDBOX_UP_FLAGS:-}
trap '$sandbox down' EXIT

# 1. The project's own tests, against the running sandbox.
npm run --silent build
npm test --silent

# 2. Scenarios from the catalogue, against the same sandbox, with a JUnit report.
$sandbox scenario run success-permit2-direct --target .sandbox --report junit=reports/scenarios.xml

# 3. Conformance of the deployment (here the sandbox's own service), with JUnit and signed JSON reports.
$sandbox conformance --sandbox .sandbox/sandbox.json --tag "${CONFORMANCE_TAGS:-discovery,health,chains,corridors}" \
  --report junit=reports/conformance.xml,json=reports/conformance.json
