# raggate GitHub Action image: a static gate binary on a small base with
# CA certificates (HTTPS to the judge and GitHub) and git (baselines read
# from git refs). Docker actions run as root, so there is no USER line.
# The release workflow builds it for linux/amd64 and linux/arm64 and pushes
# it to ghcr.io; action.yml runs that published image.

FROM --platform=$BUILDPLATFORM golang:1.26-alpine AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=dev
ARG COMMIT=
ARG DATE=
RUN CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} go build -trimpath -ldflags="-s -w -X github.com/raggate/raggate/internal/cli.Version=${VERSION} -X github.com/raggate/raggate/internal/cli.Commit=${COMMIT} -X github.com/raggate/raggate/internal/cli.Date=${DATE}" -o /out/gate ./cmd/gate

FROM alpine:3.22
RUN apk add --no-cache ca-certificates git
COPY --from=build /out/gate /usr/local/bin/gate
ENTRYPOINT ["/usr/local/bin/gate"]
CMD ["action"]
