// Package metrics exports what steady's work queues and controllers do to
// Prometheus, under the metric names Kubernetes dashboards already use.
//
// Workqueue is a workqueue.MetricsProvider: workqueue_depth,
// workqueue_adds_total, workqueue_queue_duration_seconds,
// workqueue_work_duration_seconds, workqueue_unfinished_work_seconds,
// workqueue_longest_running_processor_seconds and workqueue_retries_total,
// labelled by queue name (a controller's queue is named after it). A
// workqueue.PriorityQueue's workqueue_depth is also labelled by priority,
// as controller-runtime's is (at most 25 values); a plain queue's depth
// has no priority label, which Prometheus reads as an empty one. A
// priority queue whose adds name fairness flows also reports
// workqueue_flows and workqueue_largest_flow_depth: a count and a
// maximum rather than a series per flow, whose number (namespaces) has
// no bound.
//
// Reconcile implements controller.Metrics with controller-runtime's names:
// controller_runtime_reconcile_total{controller,result},
// controller_runtime_reconcile_errors_total,
// controller_runtime_terminal_reconcile_errors_total,
// controller_runtime_reconcile_panics_total,
// controller_runtime_reconcile_time_seconds,
// controller_runtime_max_concurrent_reconciles and
// controller_runtime_active_workers. It also records steady's
// steady_event_to_reconcile_seconds{controller}: how long a request waited
// from the informer delivering the event that asked for it to the start of
// its reconcile (queueing, rate limiting and busy workers included), which
// is the latency an operator's users feel, and
// steady_reconcile_reasons_total{controller,reason}: reconciles by the
// reasons their requests were queued for (reconcile.Reasons; a reconcile
// with several counts under each), at most reconcile.NumReasons values.
//
//	reg := prometheus.NewRegistry()
//	wq, _ := metrics.NewWorkqueue(reg)
//	rec, _ := metrics.NewReconcile(reg)
//	c, _ := controller.New("foo", r, controller.WithMetricsProvider(wq), controller.WithMetrics(rec))
//	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
package metrics
