// Package examples embeds the example protocol documents a fresh embedded
// registry starts with, so a new user sees something at once.
package examples

import "embed"

// Protocols holds protocols/*.md, each stored byte for byte.
//
//go:embed protocols/*.md
var Protocols embed.FS
