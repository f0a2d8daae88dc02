package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

// manifest is one object of a project's YAML files.
type manifest struct {
	file string // the file it is in, relative to the project
	obj  *unstructured.Unstructured
}

func (m manifest) String() string {
	return fmt.Sprintf("%s %s (%s)", m.obj.GetKind(), m.obj.GetName(), m.file)
}

// decodeManifests decodes the YAML documents of data, from file.
func decodeManifests(file string, data []byte) ([]manifest, error) {
	var out []manifest
	r := yaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for i := 1; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s document %d: %w", file, i, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc, &obj.Object); err != nil {
			return nil, fmt.Errorf("%s document %d: %w", file, i, err)
		}
		if obj.Object == nil { // comments only
			continue
		}
		if obj.GetAPIVersion() == "" || obj.GetKind() == "" || obj.GetName() == "" {
			return nil, fmt.Errorf("%s document %d: no apiVersion, kind or metadata.name", file, i)
		}
		out = append(out, manifest{file: file, obj: obj})
	}
}

// readManifests reads every YAML file under dir/sub, in path order, as
// kubectl apply -f sub -R does.
func readManifests(dir, sub string) ([]manifest, error) {
	var files []string
	err := filepath.WalkDir(filepath.Join(dir, sub), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []manifest
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(dir, f)
		ms, err := decodeManifests(filepath.ToSlash(rel), data)
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
	return out, nil
}

// strictDecode decodes a built-in kind's manifest into its Go type, as
// kubectl's validation would: an unknown or repeated field is an error.
func strictDecode(m manifest) (runtime.Object, error) {
	data, err := m.obj.MarshalJSON()
	if err != nil {
		return nil, err
	}
	decode := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer().Decode
	obj, _, err := decode(data, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m, err)
	}
	return obj, nil
}
