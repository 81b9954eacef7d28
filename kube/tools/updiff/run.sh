#!/bin/sh
# Builds updiff and the daemonplan CLI of this checkout, then runs
# `updiff ARGS...` with -daemonplan set where it applies. Run from anywhere:
#   kube/tools/updiff/run.sh validate kube/testdata/conformance/cases-v1.37/*
#   K8S=1.34 kube/tools/updiff/run.sh ...   (against k8s.io/kubernetes v1.34.4)
# Relative paths in ARGS are taken from the directory run.sh was called in.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)

case "${K8S:-1.37}" in
1.37) modfile=go.mod tags= cases=cases-v1.37 ;;
1.34) modfile=go.134.mod tags=k8s134 cases=cases dpargs='--kubernetes-version 1.34' ;;
*) echo "run.sh: K8S must be 1.37 or 1.34" >&2; exit 2 ;;
esac

# The controller's sync is unexported; _overlay/export.go exports it, laid
# over the controller's package. The go command refuses overlays of files in
# the module cache, so the modules are vendored. Vendoring again every time
# (a few seconds) keeps vendor/ at this checkout's daemonplan packages, which
# it copies too, and at the Kubernetes version asked for.
# GOWORK=off: this module is not in the repository's go.work.
export GOWORK=off
(cd "$here" && go mod vendor -modfile="$modfile")
printf '{"Replace":{"%s":"%s"}}\n' \
	"$here/vendor/k8s.io/kubernetes/pkg/controller/daemon/zz_updiff_export.go" \
	"$here/_overlay/export.go" >"$here/overlay.json"
(cd "$here" && go build -modfile="$modfile" -mod=vendor -tags="$tags" -overlay=overlay.json -o updiff .)
(cd "$root" && GOWORK= go build -o "$here/daemonplan" ./kube/cmd/daemonplan)

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
fuzz) exec "$here/updiff" fuzz -daemonplan "$here/daemonplan" -dpargs "${dpargs:-}" \
	-cases "$root/kube/testdata/conformance/$cases" "$@" ;;
recheck | shrink) exec "$here/updiff" "$cmd" -daemonplan "$here/daemonplan" -dpargs "${dpargs:-}" "$@" ;;
*) exec "$here/updiff" "$cmd" "$@" ;;
esac
