"""Reference kubelet Topology Manager with KEP-6007's allocation-aware options,
and the CPU, memory and device managers as hint providers.

Where things live:

* `gates`, `options`, `refusals`, `startup`: feature gates and option maturity per
  Kubernetes version, option parsing and validation, kubelet start-up.
* `hints`, `merge`, `merge_fast`, `merge_preferred`, `policies`: the topology hint,
  upstream's merge with the KEP-6007 score step (exhaustive, an equivalent fast
  search, and the beta preferred-first merge), the four policies.
* `node`, `pods`, `providers/`: allocation state, pod specs, and the
  CPU, memory and device managers; `cpu_topology`, `cpu_options`: the CPU
  manager's sockets, cores and threads with its packed choice of CPUs, and its
  policy options.
* `scopes`, `kubelet`, `metrics`: container and pod scope admission over one node,
  and the metrics the contract reports.
* `operations`: the `merge`, `start` and `admit` operations of
  docs/operations/kubelet.md.
"""
