"""A host report's conditions say how its threads ran: bound to one CPU each or floating
(kps-bench's host_threads_widest_cpus), and each run's note on its threads (kps_threads_note:
oversubscribed, OMP_PROC_BIND unset, unbound Kokkos::Threads workers) at the top."""
from kps_report.report import threads_binding, threads_warning


def doc(**context):
    return {"context": context}


def test_binding_is_said_from_the_widest_affinity_mask():
    bound = doc(host_threads_widest_cpus="1", kokkos_concurrency="16")
    floating = doc(host_threads_widest_cpus="16", kokkos_concurrency="16")
    assert threads_binding([bound, bound]) == "each thread on one CPU"
    assert threads_binding([floating]) == "not bound: a thread may run on up to 16 CPUs"
    assert threads_binding([bound, floating]) == "not bound: a thread may run on up to 16 CPUs in 1 of 2 runs"
    assert threads_binding([doc(host_threads_widest_cpus="2", kokkos_concurrency="1")]) == "one thread"
    assert threads_binding([doc(kokkos_concurrency="16")]) == ""  # runs before kps-bench recorded it


def test_each_threads_note_leads_the_report_once_with_its_runs():
    note = "threads not bound: each may run on any of 16 CPUs"
    text = threads_warning([doc(kps_threads_note=note, kps_job_id="scan-targets"),
                            doc(kps_threads_note=note, kps_job_id="reduce-targets"), doc(kps_job_id="copy")])
    assert text.count("**How the threads ran:**") == 1
    assert f"{note} (2 of 3 runs: reduce-targets, scan-targets)" in text
    assert threads_warning([doc(kps_job_id="copy")]) == ""
