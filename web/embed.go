// Package web holds the registry's HTML templates and static assets,
// embedded in the binary so the site works offline and from one file.
package web

import (
	"embed"
	"io/fs"
)

//go:embed templates/*.html
var templates embed.FS

//go:embed static/*
var static embed.FS

// Templates is the template directory: one file per page plus layout.html.
func Templates() fs.FS { return mustSub(templates, "templates") }

// Static is the static asset directory served under /static/.
func Static() fs.FS { return mustSub(static, "static") }

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // the directory names are constants checked by the build
	}
	return sub
}
