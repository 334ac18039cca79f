# tracenode: build stage compiles TypeScript; the runtime stage holds only what `serve` needs.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --omit=optional --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    TRACENODE_DATADIR=/data \
    TRACENODE_HOST=0.0.0.0 \
    TRACENODE_PORT=8545
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY fixtures/demo ./fixtures/demo
COPY fixtures/starknet/mainnet-blocks.ndjson ./fixtures/starknet/mainnet-blocks.ndjson
COPY scripts/start.mjs ./scripts/start.mjs
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8545
# Imports the demo chain into /data on first start, then serves it. Set TRACENODE_API_KEYS (or
# mount a keys file and set TRACENODE_KEYS_FILE) to replace the development key.
CMD ["node", "scripts/start.mjs"]
