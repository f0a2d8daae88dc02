// Package admit holds what the two children of the webhook benchmark
// (bench/cmd/webhook) and its parent share, so that steady's and
// controller-runtime's webhook servers differ only in the framework code
// they run:
//
//   - the validation logic (Validate, ValidateUpdate), which each child
//     wraps in its framework's Validator of Deployments;
//   - the admission requests (Cases): AdmissionReview v1 bodies built from
//     a Deployment a real kube-apiserver served (deployment.json), and the
//     check of each answer against what the logic says (Case.Check), and
//     the Client that sends them as kube-apiserver's webhook client does;
//   - the serving certificate both servers read (WriteCerts);
//   - the child's life cycle (Main): serve until stdin closes, CPU-profile
//     the window the parent marks; Smoke, the children's tests.
package admit
