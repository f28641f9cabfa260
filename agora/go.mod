module github.com/agora-registry/registry/agora

go 1.26.8

require (
	code.dny.dev/ssrf v0.3.0
	filippo.io/torchwood v0.6.1
	github.com/pjbgf/sha1cd v0.7.0
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/mod v0.42.0
	golang.org/x/net v0.60.0
	golang.org/x/time v0.16.0
)

require (
	golang.org/x/crypto v0.57.0 // indirect
	golang.org/x/sync v0.14.0 // indirect
)
