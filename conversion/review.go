package conversion

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The API server's ConversionReview, apiextensions.k8s.io/v1, with the
// field names of k8s.io/apiextensions-apiserver's types; declared here so
// that operators do not depend on the whole apiextensions module. Objects
// stay raw JSON: each is decoded into its own Go type.

const (
	reviewAPIVersion = "apiextensions.k8s.io/v1"
	reviewKind       = "ConversionReview"
)

// conversionReview is what the API server sends; the handler answers with
// a review whose response is encoded by conversionResponse.encode.
type conversionReview struct {
	metav1.TypeMeta `json:",inline"`
	Request         *conversionRequest `json:"request,omitempty"`
}

type conversionRequest struct {
	UID               types.UID         `json:"uid"`
	DesiredAPIVersion string            `json:"desiredAPIVersion"`
	Objects           []json.RawMessage `json:"objects"`
}

type conversionResponse struct {
	UID              types.UID         `json:"uid"`
	ConvertedObjects []json.RawMessage `json:"convertedObjects"`
	Result           metav1.Status     `json:"result"`
}

// encode writes the review answering with resp. It is written by hand
// rather than by encoding/json, which would scan every converted object
// once more to compact it and so rewrite objects returned unchanged.
func (resp *conversionResponse) encode() ([]byte, error) {
	uid, err := json.Marshal(resp.UID)
	if err != nil {
		return nil, err
	}
	result, err := json.Marshal(&resp.Result)
	if err != nil {
		return nil, err
	}
	size := 160 + len(uid) + len(result)
	for _, obj := range resp.ConvertedObjects {
		size += len(obj) + 1
	}
	b := make([]byte, 0, size)
	b = append(b, `{"apiVersion":"`+reviewAPIVersion+`","kind":"`+reviewKind+`","response":{"uid":`...)
	b = append(b, uid...)
	b = append(b, `,"convertedObjects":[`...)
	for i, obj := range resp.ConvertedObjects {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, obj...)
	}
	b = append(b, `],"result":`...)
	b = append(b, result...)
	return append(b, "}}"...), nil
}
