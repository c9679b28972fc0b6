# syntax=docker/dockerfile:1
#
# Switchboard image: one image, three entry points.
#   API (default):  node dist/api/main.js
#   Worker:         node dist/workers/main.js
#   Migrations:     node dist/scripts/migrate.js
#   Promotion:      node dist/scripts/promote-version.js   (makes this image's build the current worker version)
#
# Build:  docker build -t switchboard .

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------------------------------------------------------------
# Build stage: install all dependencies, compile TypeScript to dist/ (including the prebuilt Temporal workflow bundle
# dist/workflow-bundle.js and its build id dist/build-id, a hash of the bundle: the image needs no .git to tell two
# builds apart), then drop dev dependencies so node_modules can be copied as-is into the runtime stage.
# ---------------------------------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build

# package-lock.json is written by npm 11, and the `allowScripts` policy in package.json (which install scripts may
# run) is honoured by npm 11; the npm 10 bundled with node:20 would run every install script.
ARG NPM_VERSION=11.19.1
RUN npm install --global "npm@${NPM_VERSION}" && npm --version

WORKDIR /app

# Dependencies first, so this layer is cached until package.json / package-lock.json change.
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --no-audit --no-fund

COPY . .
RUN npm run build \
 && test -f dist/api/main.js \
 && test -f dist/workers/main.js \
 && test -f dist/scripts/migrate.js \
 && test -f dist/workflow-bundle.js \
 && test -f dist/build-id

# tsx is a production dependency, so it survives the prune.
RUN --mount=type=cache,target=/root/.npm \
    npm prune --omit=dev --no-audit --no-fund

# ---------------------------------------------------------------------------------------------------------------------
# Runtime stage
# ---------------------------------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime

# Node ships its own CA bundle, but the Temporal core bridge (Rust) reads the system trust store when it connects
# with TLS (e.g. Temporal Cloud), and slim images have no ca-certificates.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/*

ENV NODE_ENV=production

WORKDIR /app

# Files stay owned by root and read-only for the runtime user; the app writes nothing inside /app.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist

# Calls are recorded here while they run, and kept here unless RECORDINGS_S3_BUCKET is set: the one directory the
# runtime user writes (docker-compose.yml mounts a volume on it).
ENV RECORDINGS_DIR=/var/lib/switchboard/recordings
RUN mkdir -p /var/lib/switchboard/recordings && chown -R node:node /var/lib/switchboard

USER node

# 8000: HTTP API. 9464: worker Prometheus metrics (WORKER_METRICS_PORT).
EXPOSE 8000 9464

# No HEALTHCHECK here: the same image runs the API, the worker and the one-shot migration, and each needs a
# different check (see docker-compose.yml).
CMD ["node", "dist/api/main.js"]
