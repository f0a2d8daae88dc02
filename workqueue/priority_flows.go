package workqueue

import "strings"

// flowTable names the flows of a PriorityQueue's items by small numbers.
// Flow 0 is the default flow, of items added without one. Every other
// flow lives while an entry of the queue's item table names it (refs),
// and stays idle after, so that a flow whose items come and go (a quiet
// namespace) is not created again, and its name copied again, for every
// item. Idle flows are forgotten, and their numbers reused, once there
// are more of them than of live flows, and more than minIdleFlows: the
// table stays within about twice its live flows.
type flowTable struct {
	ids    table[string, int32]
	recs   []flowRec
	free   []int32
	idle   int // flows with no refs, not yet forgotten
	active int // flows with ready items
}

const minIdleFlows = 64

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
		if f.recs[id].refs == 0 {
			f.idle--
		}
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
	// Keep a copy: holding on to the caller's string would make
	// AddWithOpts's AddOpts escape, and with it the int its Priority
	// points to: an allocation per add instead of one per new flow.
	own := strings.Clone(key)
	rec := &f.recs[id]
	rec.key, rec.hash, rec.refs = own, h, 1
	*f.ids.upsert(h, own) = id
	return id
}

// release counts one entry fewer in flow id, and forgets the idle flows
// when they are too many.
func (f *flowTable) release(id int32) {
	if id == 0 {
		return
	}
	if f.recs[id].refs--; f.recs[id].refs > 0 {
		return
	}
	f.idle++
	live := len(f.recs) - 1 - len(f.free) - f.idle
	if f.idle <= max(minIdleFlows, live) {
		return
	}
	for id := range f.recs[1:] {
		rec := &f.recs[id+1]
		if rec.refs == 0 && rec.key != "" {
			f.ids.deleteAt(f.ids.find(rec.hash, rec.key))
			rec.key = "" // let go of the string; subs is empty, its array kept
			f.free = append(f.free, int32(id+1))
		}
	}
	f.idle = 0
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
