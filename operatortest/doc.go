// Package operatortest runs an operator's controllers in a test, against a
// real API server, in milliseconds: what controller-runtime users know as
// envtest, with the manager, the namespace and the clean-up done for them.
//
// A whole reconciler test, with the function main uses to wire the
// controllers (setupWithManager here) and the object the test starts from:
//
//	func TestMain(m *testing.M) { testenv.Main(m) } // one control plane for the package's tests
//
//	func TestRecordsGeneration(t *testing.T) {
//		env := operatortest.New(t, setupWithManager, withScheme)
//		deployments := operatortest.Client[*appsv1.Deployment](env)
//		if _, err := deployments.Create(t.Context(), newDeployment(env.Namespace, "web")); err != nil {
//			t.Fatal(err)
//		}
//		testenv.Eventually(t, 10*time.Second, "web's status to record its generation", func() bool {
//			d, err := deployments.Live().Get(t.Context(), env.Namespace, "web")
//			return err == nil && d.Status.ObservedGeneration == d.Generation
//		})
//	}
//
// where withScheme gives the manager the scheme main gives it, as
// operatortest.WithManagerOptions(manager.WithScheme(scheme)): a manager
// knows no Go types without one.
//
// New starts the test binary's control plane (etcd and kube-apiserver, see
// package testenv) on first use, installs the CRDs named by WithCRDs or
// WithCRDFiles once, creates a namespace for the test, and runs a manager
// restricted to it with the controllers setup wires in — the same wiring
// main uses, so the test covers For, Owns, Watches and predicates, the cache
// and its lag, not just the Reconcile method. When the test ends, the manager
// is stopped and waited for and the namespace is deleted. Under go test
// -short, tests that call New are skipped. Client gives the test a steady
// client of any kind, Env.Clientset a client-go one, and testenv.Eventually
// polls a condition every few milliseconds until it holds
// (testenv.Consistently checks that it keeps holding). The manager's log
// goes to t.Log; WithLogVerbosity shows its V(n) lines.
//
// # Cost
//
// Once the control plane runs (a few seconds, once per test binary), a test
// like the one above — fresh namespace, manager started and synced, create
// → reconcile → assert, teardown — takes about 100 ms: 2 ms for the
// namespace, 88 for the manager's start until its caches have synced, 8 from
// the create to the reconcile's write seen by the test, and 2 for the
// teardown, measured on two shared cores with
//
//	go test -run '^$' -bench 'ReconcilerTest|FirstList' -benchtime 50x -count 3 ./operatortest
//
// Most of it is one wait in kube-apiserver: an informer's first list is a
// consistent read, which the API server answers once its watch cache has
// caught up with etcd, and it asks etcd for that progress at most every
// 100 ms per resource (BenchmarkFirstList: about 100 ms against 20 ms for a
// list of any age). So tests that run one after another and list the same
// kinds take about 100 ms each, while tests marked t.Parallel share the
// waits: eight at a time took 14 ms each (BenchmarkReconcilerTestParallel). Installing a CRD, and the first
// request for a new kind, cost one to three seconds, once per test binary.
//
// # The same test with controller-runtime's fake client
//
//	func TestRecordsGeneration(t *testing.T) {
//		d := newDeployment("default", "web")
//		c := fake.NewClientBuilder().WithObjects(d).Build()
//		r := &GenerationRecorder{Client: c}
//		key := client.ObjectKeyFromObject(d)
//		if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key}); err != nil {
//			t.Fatal(err)
//		}
//		if err := c.Get(context.Background(), key, d); err != nil {
//			t.Fatal(err)
//		}
//		if d.Status.ObservedGeneration != d.Generation {
//			t.Fatalf("observedGeneration %d, generation %d", d.Status.ObservedGeneration, d.Generation)
//		}
//	}
//
// It passes with a reconciler that does nothing at all: the fake never sets
// metadata.generation, so both are 0. What the fake (controller-runtime
// v0.25) does not do, and the API server does — each shown by a test of
// this package:
//
//   - Generation. The fake leaves metadata.generation as given; the API
//     server sets it to 1 and counts spec changes, not status or metadata
//     writes (TestGenerationCountsSpecChanges), and bumps it when an object
//     with finalizers is deleted (TestFinalizers).
//   - Stale reads. The fake does refuse an update carrying an old
//     resourceVersion with 409 Conflict, as the server does
//     (TestStaleWriteConflicts); but its reads always return the latest
//     write, where a manager's cache lags it, so the conflicts and "not
//     found yet" a reconciler meets in a cluster never happen in a fake test.
//   - The status subresource. Since v0.15 the fake keeps Update and
//     Status().Update apart for built-in kinds with a status and for types
//     registered with WithStatusSubresource; it cannot know what a CRD
//     declares, so a registration that differs from the CRD goes unnoticed.
//     Here the CRD decides (TestStatusSubresource).
//   - Schemas and defaults. The fake applies no CRD schema: no defaults, no
//     validation (minimum, required, enum, CEL rules), no pruning of unknown
//     fields (TestSchemaDefaultsValidatesAndPrunes); and none of the
//     built-in kinds' defaulting, so a reconciler that compares a whole spec
//     with what it would write sees no difference there and updates forever
//     in a cluster (TestBuiltInDefaults).
//   - Admission. The fake runs none: it creates objects in namespaces that
//     do not exist or are being deleted (TestNamespaceLifecycle), and knows
//     nothing of the ValidatingAdmissionPolicies a cluster (or a test)
//     installs (TestAdmissionPolicy).
//   - Metadata. The fake sets no uid or creationTimestamp and accepts an
//     owner reference without a uid, which the server refuses
//     (TestOwnerReferences); it lets a finalizer be added to an object being
//     deleted, which the server forbids (TestFinalizers).
//   - Watches. The fake test calls Reconcile by hand: the controller's
//     inputs (For, Owns, Watches, map functions, predicates) and the loop a
//     status write can start are not exercised at all.
//
// Neither runs kube-controller-manager: no garbage collector deletes the
// dependents of a deleted owner (TestOwnerReferences), no namespace
// controller empties a deleted namespace (it stays Terminating, refusing
// new objects, until the control plane stops), and no Deployment gets
// ReplicaSets or Pods. A test that needs those plays their part, as
// examples/foo plays the deployment controller.//
// # Exploring faults
//
// The bugs that hurt operators in production are rarely in what a
// reconcile computes; they are in what happens around it: the process
// dies between two writes, a cache is behind the server, a deletion
// happens while the controller is down, another writer changes an object
// between the controller's read and its write. Explore finds them by
// running an ordinary test many times under such faults, chosen from what
// the controllers did, and failing when a run ends differently:
//
//	func steps(t testing.TB, env *operatortest.Env) { ... } // the body of an ordinary test
//
//	func TestRecordsGeneration(t *testing.T) { steps(t, operatortest.New(t, setupWithManager, withScheme)) }
//
//	func TestRecordsGenerationUnderFaults(t *testing.T) {
//		operatortest.Explore(t, setupWithManager, steps, withScheme)
//	}
//
// First the steps run unperturbed, in t, with a fresh namespace and
// manager, and every write the manager and the test make is recorded:
// its verb, object, the controller and request whose reconcile made it.
// Then each perturbation is a subtest, with a namespace and managers of
// its own, named by its fault and the write it is keyed to, so that the
// names, and the failures, are the same in every run of the test:
//
//   - crash@w: the manager crashes right after write w lands: from that
//     instant nothing it sends reaches the API server (so no clean
//     shutdown, no lease released), and a fresh manager starts at once.
//     It finds the intermediate state between two writes.
//   - down@w..s: the manager crashes after its last write w before the
//     test's write s, and the fresh one starts only once s has landed. It
//     finds a change the controllers never see happen: a deletion a
//     cleanup waited for, an update whose old value lived in memory.
//   - stale@w: the manager's watches of w's kind are held back from just
//     before w, for longer than read-your-writes waits (the events arrive
//     late, in order). It finds decisions taken from a cache that is behind.
//   - unobserved@w: the watches of w's kind are held back from w until
//     the object's next write has landed, then cut and answered 410 Gone,
//     as after a compaction, so the informer relists and the version in
//     between is never delivered.
//   - conflict@w: before the manager's update or patch w is sent, another
//     writer sets the annotation explore.steady.dev/other-writer on the
//     object. The update must conflict (409) or keep the change.
//   - error@w, timeout@w, throttle@w: w is answered 500 without being
//     applied; applied and answered 504, as when the answer is lost; or
//     answered 429 with Retry-After (the first write of each verb and kind).
//   - restart@s: as the test's write s lands, the API server goes away
//     for a moment: every watch is cut and new requests are refused.
//
// A run fails (its subtest does) when:
//
//   - the test's own checks fail: a testenv.Eventually that times out, a
//     t.Fatal; the steps get a testing.TB that keeps these for the report;
//   - it does not settle within WithSettleTimeout after the steps: some
//     request is still queued, in progress, waiting for its caches or
//     failing, or the manager keeps writing;
//   - it is not idempotent: once settled, every request the run reconciled
//     is queued once more, and any write that lands fails the run;
//   - its end state differs from the unperturbed run's: every object
//     written in the run, read back from the API server, compared without
//     what differs by itself (uids, resourceVersions, generations,
//     managedFields, timestamps, the names the server generated, the
//     namespace) and without the fields of WithIgnoredFields;
//   - the other writer's annotation is gone from an object that was not
//     deleted since;
//   - an invariant of WithInvariant is broken after some reconcile: "never
//     two children for one parent".
//
// The unperturbed run is held to the same oracles, so a controller that
// never stops writing fails before any fault is made.
//
// A failure says what was done and what went wrong, lists the run's writes
// beside the unperturbed run's, ends with the run's last log lines, and
// gives the command that replays it alone:
//
//	perturbation down@create:configmaps:p-child..test-delete:configmaps:p: crashed the manager right
//	after write 2 of 5 (create configmaps "p-child" by controller "cleanup" reconciling ns-x/p);
//	a fresh one started only after write 3 (delete configmaps "p" by the test) had landed
//	the test's own checks failed:
//		timed out after 10s waiting for p and its child to be gone: p-child still exists
//	replay: go test -run '^TestCleanup$/^down@create:configmaps:p-child\.\.test-delete:configmaps:p$' -count=1 ./internal/controller
//
// Writes are named by verb, kind and name ("test-" for the test's own,
// a generateName and * for generated names, :2 for the second such write),
// so the names hold from run to run. Writes made by the steps' clean-ups
// (t.Cleanup), which run once the end state has been read, are not
// perturbed.
//
// A perturbation whose write did not happen in its run is skipped, not
// failed. Runs go WithParallelism at a time until WithBudget is spent;
// WithFaults restricts the classes.
//
// # Writing a test to explore
//
// setup is called for every manager Explore starts, crashes included, so
// it must make all of the controllers' state itself, as main would: state
// shared with the test from outside setup survives a "crash" that a real
// process would not. The steps read through Client, whose cache is the
// test's own under Explore and outlives the managers that crash, or
// through env.Clientset; Env.Manager is the run's first manager only.
// Checks should state what must eventually hold, not how many times
// something ran. A manager not restricted to the test's namespace (one
// given manager.WithNamespace("")) sees the other runs' objects: give
// such a test WithParallelism(1).
//
// The faults are made on the manager's side of the wire: its requests go
// through a transport that records, holds back, refuses or answers them,
// while the API server and etcd are the real ones, shared by all runs.
// Compacting the shared etcd or restarting the shared API server would
// disturb every other run, so the 410 of unobserved@ and the outage of
// restart@ are answered to the one manager, as it would see them. In
// explored runs the controllers' read-your-writes bound is lowered to one
// second (controller.WithReadYourWritesTimeout), so that a watch held a
// little longer is behind it. Events and Leases are written in the
// background and are neither counted nor compared; with leader election,
// a fresh manager waits for the crashed one's lease to expire.
//
// # What steady prevents, and what it cannot
//
// Some of the bugs such exploration finds elsewhere cannot happen with
// steady's defaults. A reconcile's reads show its own writes, and the
// controller holds a request until its caches show the last reconcile's
// writes, so a controller does not create a second child because its
// cache missed the first (until the cache lags longer than that bound,
// which stale@ makes happen). A manager's first list is a consistent
// read, so a restarted operator never starts from a state older than the
// one it crashed in (the "time travel" of kubernetes#59848); Explore
// does not make that fault, which steady's reflector rules out. A relist
// after 410 delivers the deletions it finds.
//
// What no framework can prevent is in the controller's own logic: state
// kept in memory, which a restart loses; a cleanup that waits for a
// deletion event instead of holding a finalizer; a sequence of writes
// whose middle a restart cannot resume from; an update built from
// scratch, which drops what other writers added; a decision that trusts a
// cache that can be behind; a status that is written on every reconcile
// and so brings the object back for ever. The tests of this package show
// one operator of each, passing an ordinary test and failing Explore, and
// its corrected twin passing both.
package operatortest
