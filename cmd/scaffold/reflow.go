package main

import (
	"strings"
)

// commentWidth is the column at which generated comments wrap, a tab
// counting as four.
const commentWidth = 80

// reflow rewraps the paragraphs of Go comments that names made longer
// than commentWidth: the templates are wrapped by hand, but a long kind,
// group or module stretches their lines. Only prose is touched: a
// paragraph is a run of lines "// text", and markers (// +...),
// directives (//go:...), lists and code blocks (more indentation after
// //) and blank comment lines end one.
func reflow(src string) string {
	lines := strings.Split(src, "\n")
	var out []string
	for i := 0; i < len(lines); {
		indent, ok := prose(lines[i])
		if !ok {
			out = append(out, lines[i])
			i++
			continue
		}
		j := i + 1
		for j < len(lines) {
			if ind, ok := prose(lines[j]); !ok || ind != indent {
				break
			}
			j++
		}
		out = append(out, wrap(indent, lines[i:j])...)
		i = j
	}
	return strings.Join(out, "\n")
}

// prose reports whether line is a line of a comment's prose, and the
// indentation before its //.
func prose(line string) (string, bool) {
	text := strings.TrimLeft(line, "\t")
	indent := line[:len(line)-len(text)]
	rest, ok := strings.CutPrefix(text, "// ")
	if !ok || rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '+' {
		return "", false
	}
	return indent, true
}

// wrap rewraps a paragraph of comment lines if one is too long.
func wrap(indent string, para []string) []string {
	width := commentWidth - 4*len(indent) - len("// ")
	long := false
	var words []string
	for _, l := range para {
		text := strings.TrimPrefix(l, indent+"// ")
		long = long || len(text) > width
		words = append(words, strings.Fields(text)...)
	}
	if !long {
		return para
	}
	var out []string
	line := ""
	for _, w := range words {
		if line != "" && len(line)+1+len(w) > width {
			out = append(out, indent+"// "+line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(out, indent+"// "+line)
}
