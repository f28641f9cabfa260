module github.com/agora-registry/registry/agora

go 1.26.8

require github.com/pjbgf/sha1cd v0.7.0
