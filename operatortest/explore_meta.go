package operatortest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"

	"github.com/fxamacker/cbor/v2"
	"google.golang.org/protobuf/encoding/protowire"
)

// objectName is the part of an object's metadata exploration names writes by.
type objectName struct {
	Name         string `json:"name"`
	GenerateName string `json:"generateName"`
}

// protoMagic opens every protobuf body kube-apiserver speaks: the object is
// a runtime.Unknown after it.
var protoMagic = []byte("k8s\x00")

// nameOf reads the name and generateName of the object in body, encoded as
// contentType says (JSON, CBOR or Kubernetes protobuf). Only these two
// fields are read, so any kind will do, and a body that is not an object
// is an error, never a panic.
func nameOf(contentType string, body []byte) (objectName, error) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt = contentType
	}
	var m struct {
		Metadata objectName `json:"metadata"`
	}
	switch mt {
	case "application/json", "application/merge-patch+json", "application/strategic-merge-patch+json", "":
		err = json.Unmarshal(body, &m)
	case "application/cbor", "application/apply-patch+cbor":
		err = cbor.Unmarshal(body, &m)
	case "application/vnd.kubernetes.protobuf":
		m.Metadata, err = protoName(body)
	default:
		err = fmt.Errorf("content type %q", contentType)
	}
	return m.Metadata, err
}

// protoName reads metadata.name and metadata.generateName from a protobuf
// object: the Unknown's raw bytes (field 2) hold the object, whose field 1
// is its ObjectMeta, whose fields 1 and 2 are the two names.
func protoName(body []byte) (objectName, error) {
	if !bytes.HasPrefix(body, protoMagic) {
		return objectName{}, errors.New("protobuf body without the k8s prefix")
	}
	raw, err := protoField(body[len(protoMagic):], 2)
	if err != nil {
		return objectName{}, fmt.Errorf("protobuf envelope: %w", err)
	}
	meta, err := protoField(raw, 1)
	if err != nil {
		return objectName{}, fmt.Errorf("protobuf object: %w", err)
	}
	var n objectName
	for len(meta) > 0 {
		num, typ, size := protowire.ConsumeField(meta)
		if size < 0 {
			return objectName{}, fmt.Errorf("protobuf metadata: %w", protowire.ParseError(size))
		}
		if typ == protowire.BytesType && (num == 1 || num == 2) {
			_, _, tl := protowire.ConsumeTag(meta)
			v, _ := protowire.ConsumeBytes(meta[tl:])
			if num == 1 {
				n.Name = string(v)
			} else {
				n.GenerateName = string(v)
			}
		}
		meta = meta[size:]
	}
	return n, nil
}

// protoField returns the last length-delimited field num of a message, as
// protobuf's merge rule makes the last one win; an absent one is empty, as
// protobuf's defaults make it.
func protoField(msg []byte, num protowire.Number) ([]byte, error) {
	var out []byte
	for len(msg) > 0 {
		n, typ, size := protowire.ConsumeField(msg)
		if size < 0 {
			return nil, protowire.ParseError(size)
		}
		if n == num && typ == protowire.BytesType {
			_, _, tl := protowire.ConsumeTag(msg)
			out, _ = protowire.ConsumeBytes(msg[tl:])
		}
		msg = msg[size:]
	}
	return out, nil
}
