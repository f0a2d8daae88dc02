// Package deltafifo queues the changes a reflector observes until an
// informer applies them to its cache.
//
// The FIFO holds keys (object.Key: "namespace/name", or "name") in the
// order they were first queued, and for each key the ordered list of
// Deltas that happened to its object since the consumer last saw it: Added,
// Updated and Deleted from watch events, Replaced from a relist, Sync from a
// resync. A key is queued at most once, so a burst of changes to one object
// is handed to the consumer together, oldest first; two deletions in a row
// collapse into one.
//
// # Relists
//
// Replace takes a complete list and its resourceVersion. Each listed object
// gets a Replaced delta (the consumer compares resourceVersions to tell an
// unchanged object from a changed one, rather than the FIFO guessing). Each
// object the consumer knows (through KnownObjects) or that is still queued,
// but that the list lacks, was deleted while no watch was open: it gets a
// Deleted delta with FinalStateUnknown set and the last state known.
//
// A relist must look atomic to readers of the cache: never some objects from
// the new list while others the list lacks are still there. So after a
// Replace, the next Pop hands over every key queued at that moment as a
// single Batch, which the informer applies under one write lock. A watch
// event that arrives before that Pop either joins its key's deltas in the
// batch or is handed over right after it; either way a key's changes arrive
// in order. The first list into an empty FIFO takes a fast path that builds
// the batch directly, with no per-key bookkeeping.
// Replace also waits until no batch is being applied, so the known objects it
// compares against are complete.
//
// # Progress
//
// HasSynced becomes true once the batch of the first Replace (the initial
// list, even an empty one) has been popped and processed.
// LastStoreSyncResourceVersion reports the resourceVersion the consumer's
// store reflects — every delta and Bookmark up to it has been processed —
// which is the basis for read-your-writes. resourceVersions are opaque: the
// FIFO never compares them, it only remembers, for each queued key, the
// newest version seen before the key was queued. WithProgress tells the
// consumer each time that resourceVersion may have moved (a batch
// processed, a bookmark while idle), so it can wake whoever waits for its
// store to reach a write's resourceVersion instead of polling.
package deltafifo
