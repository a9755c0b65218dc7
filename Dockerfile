# The settlement sandbox in one image: two anvil chains, the contracts, the settlement service and the reference
# solvers. Build it with `npm run image` (tag settlement-sandbox:local): scripts/image/build.mjs stages the build
# context (package.json, the prebuilt dist/ — contract artifacts included — and the production node_modules, with
# compile-time packages such as forge and solc left out), so nothing is compiled or downloaded here. A plain
# `DOCKER_BUILDKIT=0 docker build .` from a checkout works too (.dockerignore keeps the big dev packages out).
#
#   docker run --rm -p 127.0.0.1:8080:8080 -p 127.0.0.1:8545:8545 -p 127.0.0.1:8546:8546 settlement-sandbox:local
#   docker cp <container>:/app/sandbox.json .     # URLs, addresses, keys (for the ports above)
#
# BASE defaults to the official Node 20 image; hosts without a registry pass a locally built one
# (scripts/image/build-base.sh; `npm run image` does so when node:20-bookworm-slim is not there).
ARG BASE=node:20-bookworm-slim
FROM ${BASE}
ENV NODE_ENV=production SANDBOX_NETWORK=bridge
WORKDIR /app
COPY node_modules/ /app/node_modules/
COPY package.json /app/package.json
COPY dist/ /app/dist/
COPY scripts/image/entrypoint.mjs /app/entrypoint.mjs
# 8080: REST API, taker WebSocket (/api/v1/ws), solver stream (/ws/v1/solver/stream); 8545, 8546: chain JSON-RPC.
EXPOSE 8080 8545 8546
LABEL org.opencontainers.image.title="settlement-sandbox" \
      io.settlement-sandbox.manifest="/app/sandbox.json" \
      io.settlement-sandbox.ports="8080,8545,8546"
ENTRYPOINT ["node", "/app/entrypoint.mjs"]
