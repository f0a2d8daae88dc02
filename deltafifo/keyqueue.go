package deltafifo

// keyQueue is a FIFO of keys on a slice whose consumed head is reclaimed as
// it grows, so steady pushing and popping does not allocate.
type keyQueue struct {
	keys []string
	head int
}

func (q *keyQueue) len() int { return len(q.keys) - q.head }

func (q *keyQueue) push(key string) {
	if q.head > 0 && len(q.keys) == cap(q.keys) {
		n := copy(q.keys, q.keys[q.head:])
		clear(q.keys[n:])
		q.keys, q.head = q.keys[:n], 0
	}
	q.keys = append(q.keys, key)
}

func (q *keyQueue) peek() string { return q.keys[q.head] }

func (q *keyQueue) pop() string {
	key := q.keys[q.head]
	q.keys[q.head] = ""
	q.head++
	if q.head == len(q.keys) {
		q.keys, q.head = q.keys[:0], 0
	}
	return key
}

func (q *keyQueue) each(fn func(key string)) {
	for _, key := range q.keys[q.head:] {
		fn(key)
	}
}

// moveToFront puts keys first, in the given order, whether or not they were
// queued already; the rest keep their order.
func (q *keyQueue) moveToFront(keys []string) {
	first := make(map[string]struct{}, len(keys))
	for _, k := range keys {
		first[k] = struct{}{}
	}
	rest := make([]string, 0, q.len())
	for _, k := range q.keys[q.head:] {
		if _, ok := first[k]; !ok {
			rest = append(rest, k)
		}
	}
	q.keys, q.head = append(append(make([]string, 0, len(keys)+len(rest)), keys...), rest...), 0
}
