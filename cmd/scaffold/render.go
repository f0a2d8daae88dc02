package main

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"go/format"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"text/template"
)

// templates are the generated project's files. templates/base is every
// project; templates/webhooks is added with -webhooks. A template's path
// is its file's, without .tmpl, with VERSION and KIND replaced by the
// version and the kind in lower case.
//
//go:embed all:templates
var templates embed.FS

// file is one rendered file of the project.
type file struct {
	path string // slash-separated, relative to the project
	data []byte
}

// render renders the project's files, in path order. Go files are
// formatted with gofmt, which also catches a template that renders
// invalid Go.
func render(p *project) ([]file, error) {
	roots := []string{"templates/base"}
	if p.Webhooks {
		roots = append(roots, "templates/webhooks")
	}
	funcs := template.FuncMap{"steady": func() string { return steadyModule }}
	names := strings.NewReplacer("VERSION", p.Version, "KIND", p.KindLower())
	var files []file
	for _, root := range roots {
		err := fs.WalkDir(templates, root, func(name string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			src, err := templates.ReadFile(name)
			if err != nil {
				return err
			}
			t, err := template.New(name).Funcs(funcs).Option("missingkey=error").Parse(string(src))
			if err != nil {
				return err
			}
			var out bytes.Buffer
			if err := t.Execute(&out, p); err != nil {
				return err
			}
			rel := names.Replace(strings.TrimSuffix(strings.TrimPrefix(name, root+"/"), ".tmpl"))
			data := out.Bytes()
			if path.Ext(rel) == ".go" {
				if data, err = format.Source([]byte(reflow(out.String()))); err != nil {
					return fmt.Errorf("template %s renders invalid Go: %w", name, err)
				}
			}
			files = append(files, file{path: rel, data: data})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("rendering the templates: %w", err)
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	for i := 1; i < len(files); i++ {
		if files[i].path == files[i-1].path {
			return nil, fmt.Errorf("rendering the templates: two templates make %s", files[i].path)
		}
	}
	return files, nil
}

// checkEmpty fails unless dir is missing or an empty directory: the
// scaffold never writes over someone's files.
func checkEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("DIR %s: %w", dir, err)
	case len(entries) > 0:
		return fmt.Errorf("DIR %s is not empty (it holds %s): the scaffold writes a new project into an empty or new directory only", dir, entries[0].Name())
	}
	return nil
}

// write writes files into dir, creating it and the directories they need.
func write(dir string, files []file) error {
	for _, f := range files {
		name := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(name, f.data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
