# luatool serve in a container: a static binary in a small Debian userland (the Bash
# tool runs real bash and the usual programs), as a user that is not root.
#
#   docker build -t luatool .
#   docker run -e LUATOOL_TOKENS=/run/secrets/tokens -v ./tokens:/run/secrets/tokens:ro luatool
#
# Every flag of serve can be set by its LUATOOL_ variable (README: Configuration by
# environment). deploy/ holds a fleet: Redis, two instances and haproxy.

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
# The module download is a layer of its own, reused while go.mod and go.sum stay.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# CGO_ENABLED=0 makes the binary static: the runtime stage needs no libc of a
# matching version, and the Landlock sandbox has a path without cgo.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/luatool ./cmd/luatool

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bash ca-certificates git ripgrep \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 10001 luatool \
 && useradd --uid 10001 --gid 10001 --create-home --home-dir /home/luatool luatool \
 && mkdir /workspace && chown luatool:luatool /workspace
COPY --from=build /out/luatool /usr/local/bin/luatool
# A numeric user, so that a platform refusing to run images as root can tell.
USER 10001:10001
# The project the tools work in: mount it here (the file tools' --root is the
# working directory).
WORKDIR /workspace
# Serve MCP over HTTP on every interface of the container, logging JSON. An address
# that is not loopback needs LUATOOL_TOKENS (or --tokens): without it serve refuses
# to start, rather than serve anyone who reaches it.
ENV LUATOOL_HTTP=0.0.0.0:8080 \
    LUATOOL_LOG_FORMAT=json
EXPOSE 8080
# Alive is GET /healthz answering 200, on the port of LUATOOL_HTTP. The image has
# no curl: bash opens the connection itself.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${LUATOOL_HTTP##*:} && printf 'GET /healthz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && read -r -t 2 status <&3 && [[ $status == *' 200 '* ]]"]
# The exec form makes luatool PID 1, so that it gets docker stop's SIGTERM itself
# and drains its calls; a shell in between would not pass the signal on.
STOPSIGNAL SIGTERM
ENTRYPOINT ["luatool"]
CMD ["serve"]
