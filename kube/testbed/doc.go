// Package testbed runs a real Kubernetes control plane inside the test
// process, on loopback addresses only: etcd embedded, the real
// kube-apiserver v1.37.2, kwok's controllers for the kubelets' node and
// pod status, and a binder that binds each daemon pod to the node its
// required node affinity names, or, with Options.Scheduler, the real
// kube-scheduler v1.37.2. The tests of this module run a DaemonSet
// scenario under the real DaemonSet controller of v1.37.2 and under
// daemonplan's example controller, each on a fresh control plane, and
// compare what a watch recorded. TestFaults runs rollouts under both
// controllers behind a FaultProxy (writes failed, watches closed, the
// server down for the controller) while the controller is killed and
// kube-apiserver restarted (Bed.RestartAPIServer), and checks from
// watches that nothing is harmed and the rollout converges. TestJudge
// compares what admission and kube-scheduler do with daemon pods (bound,
// Pending and why, the pods preempted) with package overhead's
// prediction.
//
// This is a module of its own so that k8s.io/kubernetes never enters the
// dependencies of the kube module; go.work at the repository's root does
// not list it (this directory has its own go.work).
package testbed
