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
//		env := operatortest.New(t, setupWithManager)
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
// examples/foo plays the deployment controller.
package operatortest
