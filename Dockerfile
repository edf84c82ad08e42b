# syntax=docker/dockerfile:1
#
# One image with the executables: `broker` (the default command), `stub-providers`, and `broker-demo`, which
# `broker demo` runs.
#   docker build -t social-login-broker .
#   docker run -p 8080:8080 -v broker-data:/data -v "$PWD/providers.json:/app/providers.json:ro" social-login-broker
#
# Build stage: the official Swift image on Debian 12 (bookworm) plus the -dev packages of the C libraries.
# The Swift runtime (stdlib, Foundation, Dispatch) is linked statically, so the runtime stage needs only
# Debian's shared C libraries.
ARG SWIFT_IMAGE=swift:6.3-bookworm

FROM ${SWIFT_IMAGE} AS build
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update \
    && apt-get install -y --no-install-recommends \
        libssl-dev libcurl4-openssl-dev libsqlite3-dev libmicrohttpd-dev pkg-config libargon2-dev libpq-dev libcrypt-dev libcbor-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Tests/ is needed too: the manifest declares the test targets and SwiftPM checks their folders exist.
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --static-swift-stdlib --product broker \
    && swift build -c release --static-swift-stdlib --product stub-providers \
    && swift build -c release --static-swift-stdlib --product broker-demo \
    && bin="$(swift build -c release --show-bin-path)" \
    && mkdir -p /staging \
    && cp "$bin/broker" "$bin/stub-providers" "$bin/broker-demo" /staging/

# Runtime stage: Debian 12 slim with the shared libraries the binaries link (OpenSSL 3, libcurl, SQLite,
# libmicrohttpd, Argon2 for password hashing, libpq for PostgreSQL, libcrypt for imported bcrypt hashes) and curl
# for health checks.
FROM debian:bookworm-slim
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update \
    && apt-get install -y --no-install-recommends \
        ca-certificates curl tzdata libstdc++6 \
        libssl3 libcurl4 libsqlite3-0 libmicrohttpd12 libargon2-1 libpq5 libcrypt1 libcbor0.8 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --home-dir /data --no-create-home --shell /usr/sbin/nologin broker \
    && mkdir -p /data /app \
    && chown broker:broker /data
COPY --from=build /staging/broker /staging/stub-providers /staging/broker-demo /usr/local/bin/
COPY providers.json /app/providers.json
WORKDIR /app
# The defaults of `broker serve` in a container. Set through the environment (not flags, which would win over
# it) so `docker run -e BROKER_DATABASE=...` and compose's `environment:` can change them.
ENV BROKER_CONFIG=/app/providers.json \
    BROKER_DATABASE=/data/broker.sqlite \
    BROKER_HOST=0.0.0.0 \
    BROKER_PORT=8080
USER broker
VOLUME ["/data"]
EXPOSE 8080
# SIGTERM (Docker's default stop signal) drains in-flight requests and exits 0.
CMD ["broker", "serve"]
