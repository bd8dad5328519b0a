# The API and the worker share one image; the command picks the role. The browser bundles (the dashboard, the pay
# page's wallet script) are built in a stage that has the dev dependencies (Vite, Preact, the wallet libraries); the
# image itself installs the production dependencies only, whose `prepare` skips the build (tools/build-web.ts: no
# Vite there).
FROM node:20-bookworm-slim AS web
WORKDIR /build
COPY package.json package-lock.json ./
COPY web ./web
COPY lib/web-build.ts ./lib/
COPY tools/build-web.ts ./tools/
RUN npm ci --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
COPY lib/web-build.ts ./lib/
COPY tools/build-web.ts ./tools/
RUN npm ci --omit=dev --no-audit --no-fund
COPY --from=web /build/dist/dashboard ./dist/dashboard
COPY --from=web /build/dist/pay ./dist/pay
COPY api ./api
COPY activities ./activities
COPY chains ./chains
COPY db ./db
COPY domain ./domain
COPY lib ./lib
COPY scripts ./scripts
COPY services ./services
COPY web/pay ./web/pay
COPY workers ./workers
COPY workflows ./workflows
COPY tsconfig.json ./
USER node
EXPOSE 8080 9101 9201
CMD ["npx", "tsx", "api/server.ts"]
