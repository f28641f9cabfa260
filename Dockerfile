# One image, two binaries: the registry and the reference agent share the
# base, the Go runtime and most packages, so one image is simpler to build,
# scan, sign and pin than two, and costs the registry-only user ~10 MB. The
# entrypoint is the registry; compose runs the agent with
# `entrypoint: ["/usr/local/bin/agent"]`.
#
#   docker build --build-arg VERSION=$(git describe --always) -t agora-registry .
FROM golang:1.26-bookworm AS build
ARG VERSION=""
WORKDIR /src
# Every module's go.mod and go.sum before the download: go.mod replaces the
# public agora module with ./agora, so the download reads agora/go.mod.
# (internal/docgen's TestDockerfileBuildStageReplays replays this stage.)
COPY go.mod go.sum ./
COPY agora/go.mod agora/go.sum ./agora/
RUN go mod download
COPY . .
# CGO is off: the embedded SQLite driver is pure Go, so the binaries are
# static and run on an image with no libc. One stamp for both binaries
# (`registry version`, `agent version`).
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X github.com/agora-registry/registry/internal/buildinfo.stamp=${VERSION}" -o /out/ ./cmd/registry ./cmd/agent \
 && mkdir -p /out/data /out/cache

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/registry /out/agent /usr/local/bin/
COPY --from=build --chown=65532:65532 /out/data /data
COPY --from=build --chown=65532:65532 /out/cache /cache
USER 65532:65532
# Listen on every interface inside the container (the default is loopback
# only); without REGISTRY_DATABASE_URL the embedded SQLite store lives in
# the /data volume, so `docker run -p 8080:8080 IMAGE` works alone.
ENV REGISTRY_ADDR=:8080 \
    REGISTRY_DATA_DIR=/data
EXPOSE 8080
VOLUME ["/data"]
# The binary checks itself: the final image has no shell or curl.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["/usr/local/bin/registry", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/registry"]
CMD ["serve"]
