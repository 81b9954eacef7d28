module github.com/daemonplan/daemonplan

go 1.23

require (
	github.com/google/go-cmp v0.7.0
	github.com/stretchr/testify v1.12.1
	pgregory.net/rapid v1.3.0
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
