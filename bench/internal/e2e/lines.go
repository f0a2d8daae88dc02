package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// ReadLines decodes one JSON value per line of r into out until r ends,
// and returns why it stopped: nil at the end of r, else the error, naming
// who wrote the line it could not decode. It does not close out.
func ReadLines[R any](r io.Reader, out chan<- R, who string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var v R
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return fmt.Errorf("%s wrote %q: %w", who, sc.Text(), err)
		}
		out <- v
	}
	return sc.Err()
}
