# gridops image: one image for every role. ROLE=api (HTTP), ROLE=worker (solver
# processes consuming the BullMQ queue) or ROLE=all (both). See docs/deployment.md.

# --- build: TypeScript + AssemblyScript (dev dependencies needed) -------------
FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json asconfig.json ./
COPY assembly ./assembly
COPY src ./src
COPY workers ./workers
COPY test ./test
COPY bench ./bench
COPY bin ./bin
RUN npm run build

# --- runtime: production dependencies, compiled JS and WebAssembly only -------
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/app/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/build ./build
COPY bin ./bin
# Pages the service serves itself (/docs/load-testing, /docs/clients; the 429 points there).
COPY docs ./docs
RUN mkdir -p /app/data && chown -R node:node /app/data
USER node
EXPOSE 8080
# Liveness of an HTTP process (ROLE=all|api); worker containers override or disable it.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/api/v1/health').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"]
# Runs node directly (not npm) so SIGTERM reaches the process and it shuts down
# gracefully: HTTP closes, workers finish their running solves.
CMD ["node", "--expose-gc", "dist/src/server.js"]
