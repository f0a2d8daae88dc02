package conversion_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/steadyctl/steady/conversion"
	"github.com/steadyctl/steady/conversion/internal/widget"
)

func TestConvertFailures(t *testing.T) {
	s := widget.Scheme()
	addBroken(s)
	h := conversion.NewHandler(s)
	const v1, v2alpha1 = "convert.steady.test/v1", "convert.steady.test/v2alpha1"
	broken := func(version, kind string) string {
		return fmt.Sprintf(`{"apiVersion":"broken.steady.test/%s","kind":%q,"metadata":{"name":"b"}}`, version, kind)
	}
	tests := []struct {
		name    string
		desired string
		objects []string
		want    string // the whole message, or, ending in "...", its start
	}{
		{"conversion error", v1, []string{v1beta1Widget("bad", widget.ColorInvalid)},
			`Widget default/bad from convert.steady.test/v1beta1 to convert.steady.test/v1: color "invalid" is not a colour`},
		{"conversion error through the hub", v2alpha1, []string{v1beta1Widget("bad", widget.ColorInvalid)},
			`Widget default/bad from convert.steady.test/v1beta1 to convert.steady.test/v2alpha1: to the hub v1: color "invalid" is not a colour`},
		{"one bad object fails all", v1, []string{v1beta1Widget("a", "red"), v1beta1Widget("bad", widget.ColorInvalid), v1beta1Widget("c", "blue")},
			`Widget default/bad from convert.steady.test/v1beta1 to convert.steady.test/v1: color "invalid" is not a colour`},
		{"panic", v1, []string{v1beta1Widget("boom", widget.ColorExplode)},
			`Widget default/boom from convert.steady.test/v1beta1 to convert.steady.test/v1: conversion panicked: the color exploded`},
		{"unknown kind", v1, []string{`{"apiVersion":"convert.steady.test/v1beta1","kind":"Sprocket","metadata":{"name":"s"}}`},
			`Sprocket s from convert.steady.test/v1beta1 to convert.steady.test/v1: version v1beta1 of kind Sprocket.convert.steady.test is not registered in the scheme`},
		{"unknown desired version", "convert.steady.test/v9", []string{v1beta1Widget("w", "red")},
			`Widget default/w from convert.steady.test/v1beta1 to convert.steady.test/v9: version v9 of kind Widget.convert.steady.test is not registered in the scheme`},
		{"another group", "other.steady.test/v1", []string{v1beta1Widget("w", "red")},
			`Widget default/w from convert.steady.test/v1beta1 to other.steady.test/v1: a conversion cannot change the group of an object`},
		{"no apiVersion", v1, []string{`{"kind":"Widget","metadata":{"name":"w"}}`},
			`Widget w from (no apiVersion) to convert.steady.test/v1: the object has no apiVersion`},
		{"no kind", v1, []string{v1beta1Widget("a", "red"), `{"apiVersion":"convert.steady.test/v1beta1"}`},
			`object request.objects[1] from convert.steady.test/v1beta1 to convert.steady.test/v1: the object has no kind`},
		{"bad apiVersion", v1, []string{`{"apiVersion":"a/b/c","kind":"Widget"}`},
			`Widget request.objects[0] from a/b/c to convert.steady.test/v1: unexpected GroupVersion string: a/b/c`},
		{"null", v1, []string{`null`}, `object request.objects[0] from (no apiVersion) to convert.steady.test/v1: the object is not a JSON object`},
		{"not an object", v1, []string{`[{}]`}, `object request.objects[0] from (no apiVersion) to convert.steady.test/v1: the object is not a JSON object`},
		{"bad metadata", v1, []string{`{"apiVersion":"convert.steady.test/v1beta1","kind":"Widget","metadata":{"name":7}}`},
			`Widget request.objects[0] from convert.steady.test/v1beta1 to convert.steady.test/v1: reading apiVersion, kind and metadata: json: cannot unmarshal number...`},
		{"JSON the type rejects after an object it took", v1, []string{v1beta1Widget("good", "red"),
			`{"apiVersion":"convert.steady.test/v1beta1","kind":"Widget","metadata":{"name":"w"},"spec":{"replicas":"three"}}`},
			`Widget w from convert.steady.test/v1beta1 to convert.steady.test/v1: decoding *widget.V1beta1: json: cannot unmarshal string...`},
		{"JSON the type rejects", v1, []string{`{"apiVersion":"convert.steady.test/v1beta1","kind":"Widget","metadata":{"name":"w"},"spec":{"replicas":"three"}}`},
			`Widget w from convert.steady.test/v1beta1 to convert.steady.test/v1: decoding *widget.V1beta1: json: cannot unmarshal string...`},
		{"no hub", "broken.steady.test/v2", []string{broken("v1", "Orphan")},
			`Orphan b from broken.steady.test/v1 to broken.steady.test/v2: conversion: kind Orphan.broken.steady.test has no hub: none of its versions (v2, v1) has a Hub() method`},
		{"to a version that is neither", "broken.steady.test/v2", []string{broken("v1", "Odd")},
			`Odd b from broken.steady.test/v1 to broken.steady.test/v2: *conversion_test.neither[...`},
		{"from a version that is neither", "broken.steady.test/v1", []string{broken("v2", "Odd")},
			`Odd b from broken.steady.test/v2 to broken.steady.test/v1: *conversion_test.neither[...`},
		{"between two hubs", "broken.steady.test/v1", []string{broken("v2", "Twin")},
			`Twin b from broken.steady.test/v2 to broken.steady.test/v1: *conversion_test.hub[...`},
		{"metadata not embedded", "broken.steady.test/v2", []string{broken("v1", "Unmeta")},
			`Unmeta b from broken.steady.test/v1 to broken.steady.test/v2: *conversion_test.unmetaHub does not embed metav1.ObjectMeta`},
		{"spoke rejects the hub", "broken.steady.test/v3", []string{broken("v2", "WrongHub")},
			`WrongHub b from broken.steady.test/v2 to broken.steady.test/v3: to the hub v1: spoke converts to *conversion_test.hub[...`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := failed(t, h, tt.desired, tt.objects...)
			if prefix, ok := strings.CutSuffix(tt.want, "..."); ok {
				if !strings.HasPrefix(msg, prefix) {
					t.Errorf("message\n%s\nwant it to start\n%s", msg, prefix)
				}
			} else if msg != tt.want {
				t.Errorf("message\n%s\nwant\n%s", msg, tt.want)
			}
		})
	}
}

// A panic is logged with its stack; the handler goes on serving.
func TestConvertPanicLogged(t *testing.T) {
	var logs logBuffer
	h := conversion.NewHandler(widget.Scheme(), conversion.WithLogger(logs.logger()))
	failed(t, h, "convert.steady.test/v1", v1beta1Widget("boom", widget.ColorExplode))
	for _, want := range []string{`"msg"="conversion panicked"`, "the color exploded", "widget.(*V1beta1).ConvertTo", `"object"="default/boom"`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log\n%s\nwant it to contain %q", logs.String(), want)
		}
	}
	converted(t, h, "convert.steady.test/v1", v1beta1Widget("fine", "red"))
}
