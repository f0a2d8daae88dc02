package admission

import (
	"bytes"
	"encoding/json"
)

// rawObjects are the raw values of a review's request.object and
// request.oldObject, nil where absent or null.
type rawObjects struct{ object, oldObject []byte }

// locateObjects finds the raw objects in body, a review the JSON decoder
// accepts, as the decoder sees them: keys compared exactly once
// unescaped. It returns false when it cannot tell, for a key that
// occurs twice (which the decoder would merge) or a body that is not a
// JSON object; the caller then decodes the objects from the review the
// slow way.
func locateObjects(body []byte) (rawObjects, bool) {
	var found rawObjects
	request, ok := member(body, "request")
	if !ok {
		return found, false
	}
	var oldOK bool
	if found.object, ok = member(request, "object"); ok {
		found.oldObject, oldOK = member(request, "oldObject")
	}
	if !ok || !oldOK {
		return found, false
	}
	if bytes.Equal(found.object, null) {
		found.object = nil
	}
	if bytes.Equal(found.oldObject, null) {
		found.oldObject = nil
	}
	return found, true
}

var null = []byte("null")

// member returns the value of key in the JSON object obj, nil if absent;
// false if obj is no JSON object or has key twice. obj may also be nil
// or null, an object without members.
func member(obj []byte, key string) ([]byte, bool) {
	i := skipSpace(obj, 0)
	if len(obj) == 0 || bytes.Equal(obj[i:], null) {
		return nil, true
	}
	if i >= len(obj) || obj[i] != '{' {
		return nil, false
	}
	var value []byte
	seen := false
	for i = skipSpace(obj, i+1); i < len(obj) && obj[i] == '"'; i = skipSpace(obj, i+1) {
		start := i
		i = skipString(obj, i)
		name := obj[start:i]
		if i = skipSpace(obj, i); i >= len(obj) || obj[i] != ':' {
			return nil, false
		}
		start = skipSpace(obj, i+1)
		i = skipValue(obj, start)
		if keyIs(name, key) {
			if seen {
				return nil, false
			}
			value, seen = obj[start:i], true
		}
		if i = skipSpace(obj, i); i >= len(obj) || obj[i] != ',' {
			break
		}
	}
	return value, true
}

// keyIs reports whether the quoted JSON string name is key.
func keyIs(name []byte, key string) bool {
	if bytes.IndexByte(name, '\\') < 0 { // the API server escapes nothing in keys
		return len(name) == len(key)+2 && string(name[1:len(name)-1]) == key
	}
	var s string
	return json.Unmarshal(name, &s) == nil && s == key
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// structural marks the bytes skipValue stops at inside an object or
// array; a table is faster than a switch on every byte.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// skipValue returns the index after the value starting at b[i], which
// need only be valid JSON to be skipped correctly.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			if !structural[b[i]] {
				continue
			}
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			default:
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for ; i < len(b); i++ { // a number, true, false or null
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}
