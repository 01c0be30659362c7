# mock-backend in a container: the five course APIs on port 8080.
#
#   docker build -t mock-backend .
#   docker run -p 8080:8080 mock-backend
#
# Inside a container no client is on loopback, so /_mock/… (reset, state, faults, journal, OTP outbox)
# answers 403 unless an admin token is set; then every caller sends `Authorization: Bearer <token>`:
#   docker run -p 8080:8080 -e MOCK_ADMIN_TOKEN=classroom mock-backend
#   curl -X POST -H 'Authorization: Bearer classroom' http://localhost:8080/_mock/reset
# Flags go after the image name (`docker run -p 8080:8080 mock-backend --otp-code 123456`); every flag
# also has its environment variable (`-e MOCK_OTP_CODE=123456`). Durable state across restarts:
#   docker run -p 8080:8080 -v mock-data:/data -e MOCK_STATE=/data/state.json mock-backend
#
# scripts/test-release.sh tests natively what this image carries (same script, same files, same start).

# Build: scripts/release.sh → /src/dist/mock-backend/{mock-backend,Seed/}, a stripped release build with
# the Swift runtime, Foundation and ICU (time zone data included) linked in statically.
FROM swift:6.3-bookworm AS build
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
COPY Seed ./Seed
COPY scripts/release.sh ./scripts/
RUN scripts/release.sh

# Run: Debian's slim image has the only libraries left to load (glibc, libstdc++, libgcc). No tzdata
# (the zone rules are in the program), no CA certificates (it never calls out), no curl.
FROM debian:bookworm-slim
RUN groupadd --system --gid 10001 mock \
 && useradd --system --uid 10001 --gid mock --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin mock \
 && install -d -o mock -g mock /data
# The program finds Seed/ beside itself.
COPY --from=build /src/dist/mock-backend/ /app/
USER 10001:10001
# A relative --state file lands in the writable /data.
WORKDIR /data
# No --host: the server listens on every interface, IPv6 and IPv4 (IPv4 only where IPv6 is off).
ENV PORT=8080
EXPOSE 8080
# --healthcheck asks the server at the port and with the admin token it was started with, flags after
# the image name included: the server leaves them in a private file in /tmp, and with --read-only the
# check reads them from PID 1's command line and socket in /proc (docs/admin.md#health-check).
# The banner cannot see the host's address: -e MOCK_PUBLIC_URL=http://<host-ip>:<host-port> shows it.
HEALTHCHECK --interval=30s --timeout=5s --start-period=5s --retries=3 CMD ["/app/mock-backend", "--healthcheck"]
# SIGTERM (docker stop) lets requests in flight finish, then exits 0.
ENTRYPOINT ["/app/mock-backend"]
