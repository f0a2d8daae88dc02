package workqueue

// fifo is a ring buffer of ready items, oldest first. Unlike an
// append/reslice queue it reuses its slots, so a queue in steady state
// does not allocate.
type fifo[T any] struct {
	buf    []hashedItem[T] // len is zero or a power of two
	head   int             // index of the oldest entry
	n      int             // number of entries
	shrink shrinkPolicy
}

// hashedItem is an item with its hash, kept where the item waits (the
// FIFO, the delay heap) so that whoever takes it from there finds its
// state without hashing it again under the lock.
type hashedItem[T any] struct {
	item T
	hash uint64
}

// minFIFO is the smallest buffer; below it shrinking is not worth a copy.
const minFIFO = 64

func (f *fifo[T]) len() int { return f.n }

func (f *fifo[T]) push(item T, hash uint64) {
	if f.n == len(f.buf) {
		f.resize(max(minFIFO, 2*len(f.buf)))
	}
	f.buf[(f.head+f.n)&(len(f.buf)-1)] = hashedItem[T]{item, hash}
	f.n++
	f.shrink.grew(f.n)
}

// peek returns the oldest entry; the fifo must not be empty.
func (f *fifo[T]) peek() hashedItem[T] { return f.buf[f.head] }

// pop removes and returns the oldest entry; the fifo must not be empty.
func (f *fifo[T]) pop() hashedItem[T] {
	e := f.buf[f.head]
	f.buf[f.head] = hashedItem[T]{} // let the garbage collector have the item
	f.head = (f.head + 1) & (len(f.buf) - 1)
	f.n--
	if f.n == 0 && f.shrink.emptied(len(f.buf), minFIFO) {
		f.resize(len(f.buf) / 2)
	}
	return e
}

func (f *fifo[T]) resize(size int) {
	buf := make([]hashedItem[T], size)
	if f.n > 0 {
		end := f.head + f.n
		if end <= len(f.buf) {
			copy(buf, f.buf[f.head:end])
		} else {
			k := copy(buf, f.buf[f.head:])
			copy(buf[k:], f.buf[:end-len(f.buf)])
		}
	}
	f.buf, f.head = buf, 0
}
