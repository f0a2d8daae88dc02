package reflector_test

import (
	"fmt"

	"github.com/steadyctl/steady/reflector"
)

// A shard selector in the API server's syntax: the first of two halves of
// the hash space of uids. ParseShardSelector checks it as kube-apiserver
// does and returns apimachinery's sharding.Selector in normal form.
func ExampleParseShardSelector() {
	sel, err := reflector.ParseShardSelector(`shardRange(object.metadata.uid, "0x0000000000000000", '0x8000000000000000')`)
	fmt.Println(sel, err)

	_, err = reflector.ParseShardSelector("shardRange(object.metadata.uid, '0x0', '0x8')")
	fmt.Println(err)
	// Output:
	// shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') <nil>
	// shard selector "shardRange(object.metadata.uid, '0x0', '0x8')": bound "0x0": want 0x and 16 lowercase hex digits, or 0x10000000000000000
}
