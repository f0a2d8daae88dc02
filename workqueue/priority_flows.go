package workqueue

// flowTable names the flows of a PriorityQueue's items by small numbers.
// Flow 0 is the default flow, of items added without one; every other
// flow lives while an entry of the queue's item table names it (refs),
// and its number is then reused, so that a queue whose flows come and go
// (namespaces) neither grows nor allocates once warm.
type flowTable struct {
	ids    table[string, int32]
	recs   []flowRec
	free   []int32
	active int // flows with ready items
}

type flowRec struct {
	key   string
	hash  uint64
	refs  int     // item table entries in this flow
	ready int     // its ready items
	subs  []int32 // its subqueues in the ready set, kept for reuse
}

func (f *flowTable) init() { f.recs = []flowRec{{}} }

// acquire returns the number of the flow named key, whose hash is h,
// counting one more entry in it; key is not "".
func (f *flowTable) acquire(key string, h uint64) int32 {
	if i := f.ids.find(h, key); i >= 0 {
		id := *f.ids.at(i)
		f.recs[id].refs++
		return id
	}
	var id int32
	if n := len(f.free); n > 0 {
		id = f.free[n-1]
		f.free = f.free[:n-1]
	} else {
		id = int32(len(f.recs))
		f.recs = append(f.recs, flowRec{})
	}
	rec := &f.recs[id]
	rec.key, rec.hash, rec.refs = key, h, 1
	*f.ids.upsert(h, key) = id
	return id
}

// release counts one entry fewer in flow id, and forgets the flow when
// none is left.
func (f *flowTable) release(id int32) {
	if id == 0 {
		return
	}
	rec := &f.recs[id]
	if rec.refs--; rec.refs > 0 {
		return
	}
	f.ids.deleteAt(f.ids.find(rec.hash, rec.key))
	rec.key = "" // let go of the string; subs is empty, its array kept
	f.free = append(f.free, id)
}

// key returns the name of flow id.
func (f *flowTable) key(id int32) string { return f.recs[id].key }

// readyChanged adds d to the ready items of flow id.
func (f *flowTable) readyChanged(id int32, d int) {
	rec := &f.recs[id]
	was := rec.ready
	rec.ready += d
	switch {
	case was == 0 && rec.ready > 0:
		f.active++
	case was > 0 && rec.ready == 0:
		f.active--
	}
}

// largest returns the ready items of the flow that has most.
func (f *flowTable) largest() int {
	most := 0
	for i := range f.recs {
		most = max(most, f.recs[i].ready)
	}
	return most
}
