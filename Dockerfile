# The API and the worker share one image; the command picks the role.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY api ./api
COPY activities ./activities
COPY chains ./chains
COPY db ./db
COPY domain ./domain
COPY lib ./lib
COPY scripts/migrate.ts ./scripts/migrate.ts
COPY services ./services
COPY web ./web
COPY workers ./workers
COPY workflows ./workflows
COPY tsconfig.json ./
USER node
EXPOSE 8080 9101 9201
CMD ["npx", "tsx", "api/server.ts"]
