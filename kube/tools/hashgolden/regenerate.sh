#!/bin/sh
# Regenerates kube/upstream/layouts/v*.txt and
# kube/upstream/testdata/hash/golden-v*.json, each with its Kubernetes
# minor's own k8s.io/api and k8s.io/apimachinery (see package hashgolden).
# Run from anywhere: kube/tools/hashgolden/regenerate.sh
set -eu
cd "$(dirname "$0")"
for dir in k8s-1.*/; do
	# GOWORK=off: these modules are not in the repository's go.work.
	(cd "$dir" && GOWORK=off go run .)
done
