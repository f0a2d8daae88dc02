package workqueue

// fifo is a ring buffer of ready items, oldest first. Unlike an
// append/reslice queue it reuses its slots, so a queue in steady state
// does not allocate. Each entry keeps the item's hash so that Get can
// find the item's state without hashing it again under the lock.
type fifo[T any] struct {
	buf    []fifoEntry[T] // len is zero or a power of two
	head   int            // index of the oldest entry
	n      int            // number of entries
	shrink shrinkPolicy
}

type fifoEntry[T any] struct {
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
	f.buf[(f.head+f.n)&(len(f.buf)-1)] = fifoEntry[T]{item, hash}
	f.n++
	f.shrink.grew(f.n)
}

// peek returns the oldest entry; the fifo must not be empty.
func (f *fifo[T]) peek() fifoEntry[T] { return f.buf[f.head] }

// pop removes and returns the oldest entry; the fifo must not be empty.
func (f *fifo[T]) pop() fifoEntry[T] {
	e := f.buf[f.head]
	f.buf[f.head] = fifoEntry[T]{} // let the garbage collector have the item
	f.head = (f.head + 1) & (len(f.buf) - 1)
	f.n--
	if f.n == 0 && f.shrink.emptied(len(f.buf), minFIFO) {
		f.resize(len(f.buf) / 2)
	}
	return e
}

func (f *fifo[T]) resize(size int) {
	buf := make([]fifoEntry[T], size)
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
