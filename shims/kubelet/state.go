package main

import (
	"flag"
	"os"

	"k8s.io/klog/v2"
	kubeletmetrics "k8s.io/kubernetes/pkg/kubelet/metrics"
)

// initState prepares process-wide upstream state once: klog writes to stderr
// only (stdout carries the protocol), the kubelet's metrics are registered so
// its counters count, and the pristine feature gate is kept for per-case copies.
func initState() {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "true")
	_ = fs.Set("v", "0")
	klog.SetOutput(stderrWriter{})
	kubeletmetrics.Register()
	initGates()
}

type stderrWriter struct{}

func (stderrWriter) Write(p []byte) (int, error) { return os.Stderr.Write(p) }
