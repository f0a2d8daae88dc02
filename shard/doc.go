// Package shard lets the replicas of one operator share the objects of a
// controller between them, each reconciling about 1/N, with Kubernetes
// Leases as the only coordination: no sharder to deploy, no leader.
//
// # Assignment
//
// Objects are placed on a ring of 64-bit hashes: Hash, the FNV-1a hash of
// an object's uid or namespace (Field), exactly as kube-apiserver computes
// it for a sharded list or watch (ListOptions.ShardSelector, KEP-5866).
// An Assignment shares the ring among members by consistent hashing with
// virtual nodes: every replica that knows the same members computes the
// same Assignment, a member joining takes about 1/N of the keyspace from
// the others and a member leaving hands on only its own ranges.
// Assignment.Ranges are a member's half-open Ranges, and Selector the
// ShardSelector that makes the API server send a replica only the objects
// it owns:
//
//	shardRange(object.metadata.uid, '0x0000000000000000', '0x5555555555555555') || …
//
// # Membership
//
// A Ring (New, Start) is one replica's membership of a named ring. The
// replica holds its own coordination.k8s.io/v1 Lease, "<ring>-<identity>"
// labelled shard.steady.dev/ring=<ring>, renewed every retry period like
// a leader election lease, and watches the ring's Leases: the members are
// the Leases not expired. A replica that has not renewed within the renew
// deadline owns nothing and starts nothing, and the deadline is shorter
// than the lease duration, so it has stopped before another replica can
// take its ranges. Expiry is judged by the observer's clock, from when it
// saw the last renewal, so replicas' clocks need not agree; the observer
// then deletes the expired Lease, on the condition that it is unchanged,
// so a member that did renew meanwhile keeps it. When Start's context
// ends the replica starts nothing more, waits for its reconciles in
// progress and deletes its Lease (WithReleaseOnCancel(false) leaves it to
// expire, as a crash would).
//
// Owned and Selector say what the replica's informers should hold;
// MayStart and Begin what its controller may reconcile, Owns whether a
// hash it may not start yet is its at all; Changed when either changes.
// A manager runs a Ring on every replica (NeedLeaderElection is false)
// and records its handovers (SetMetrics); the builder's Sharded wires a
// controller and its informers to one (see package builder).
//
// # Handover
//
// Consistent hashing makes replicas agree on owners once they see the
// same members, but they see a change at different times. The handover
// protocol makes sure that two replicas never reconcile objects of one
// hash at the same time, whatever they see:
//
//  1. A replica acknowledges on its Lease (annotation
//     shard.steady.dev/drained-for: the member identities, and
//     shard.steady.dev/virtual-nodes) the member set whose assignment
//     bounds every reconcile it has in progress and every one it may
//     start until it writes another. An absent or empty acknowledgement
//     bounds it to nothing.
//  2. When the members it sees change, a replica stops starting
//     reconciles in the ranges it lost at once, waits until none of its
//     reconciles in progress (counted by Begin and its done func) is in
//     them, and then acknowledges the new member set. Ranges it kept
//     need no wait.
//  3. A replica starts a reconcile of hash h (MayStart, Begin) only when
//     it is a healthy member, the current assignment and its own
//     acknowledgement both give it h, its watch has shown it the write
//     that stored that acknowledgement, and no other Lease it sees, live
//     or expired, carries an acknowledgement that gives its member h.
//     A Lease stops blocking when it is deleted: by its member leaving,
//     or by another member after it expired.
//
// Why this is safe: say replicas A and B both reconcile h. Each stored an
// acknowledgement covering h before starting, and keeps one covering h on
// its Lease until that reconcile has ended (step 2). etcd orders the two
// writes; say A's came first. B started after its watch showed it its
// own write, so its view then also held A's Lease with an acknowledgement
// covering h — unless A had ended that reconcile before — and rule 3
// forbade B to start. The argument needs no agreement on members, clocks
// or virtual nodes, only the API server's ordering of writes and watch
// events; disagreement costs liveness, never safety. A write whose
// outcome is unknown is treated as possibly stored: until a later write
// succeeds, reconciles start only where both acknowledgements allow.
//
// The one gap is the one leader election has: a replica cut off from the
// API server stops starting reconciles after the renew deadline, but a
// reconcile already running when its Lease expires and is deleted may
// still overlap its successor's. Keep reconciles shorter than the lease
// duration minus the renew deadline (5 s by default).
//
// # RBAC
//
// A replica needs, in the ring's namespace (WithNamespace, default
// "default"):
//
//	rules:
//	- apiGroups: ["coordination.k8s.io"]
//	  resources: ["leases"]
//	  verbs: ["get", "list", "watch", "create", "update", "delete"]
package shard
