//! The thread pool every command runs on: the main thread is its first worker, and the
//! spawned workers are kept off the main thread's CPU.

/// A thread pool whose first worker is the main thread, so that a build started on it
/// runs its parallel parts there and on `cores - 1` spawned threads, rather than waking a
/// pool of `cores` threads and sleeping until they are done: one thread and two
/// hand-overs per parallel step fewer, which is about 5% of a small build's wall time.
///
/// A pool of its own rather than rayon's global one: `build_global` waits until every
/// spawned thread has started, about half a millisecond on the bench machine, which a
/// build of a few files never uses the pool to win back. This one starts its threads and
/// returns; the main thread runs every job itself until they are up. Everything kbuild
/// runs on rayon runs inside `install`, so on this pool.
///
/// Only with two threads or more: the main thread runs pool jobs only while it waits in a
/// parallel step of its own, so a pool of it alone would never run a job another thread
/// hands in. `RAYON_NUM_THREADS` is honoured as rayon honours it.
pub(crate) fn sharing_main_thread() -> Option<rayon::ThreadPool> {
    let threads = std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(1);
    if threads < 2 {
        return None;
    }
    let main_cpu = current_cpu();
    // An error (no thread could be started) leaves rayon's global pool, as before.
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .use_current_thread()
        .start_handler(move |_| {
            if let Some(cpu) = main_cpu {
                keep_off(cpu);
            }
        })
        .build()
        .ok()
}

/// The CPU the calling thread runs on, where the system says.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn current_cpu() -> Option<usize> {
    // SAFETY: `sched_getcpu` takes no arguments and touches no memory of ours.
    usize::try_from(unsafe { libc::sched_getcpu() }).ok()
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn current_cpu() -> Option<usize> {
    None
}

/// Keeps the calling thread (a spawned worker) off `cpu`, the main thread's, when the
/// process may run on other CPUs too.
///
/// Why: Linux often starts a new thread, and wakes it, on the CPU of the thread that
/// made or woke it, and moves one of the two only when its periodic load balancing
/// notices, several milliseconds later. Until then the main thread and the worker share
/// one CPU, taking turns, while the other CPUs idle. Sampled on the 2-CPU bench machine
/// (`perf record --sample-cpu`), the small bench tree's build ran its two threads on one
/// CPU for its first 8 to 10 ms, most of the build. Without the main thread's CPU to
/// choose, the scheduler puts the worker on an idle one from the start. The main thread
/// stays free to run anywhere, and does the pool's work itself when a worker's CPU is
/// busy with another program, so this costs nothing a shared machine would notice.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn keep_off(cpu: usize) {
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: a zeroed `cpu_set_t` is an empty set (it is plain data); the set is
    // passed with its own size, and `CPU_COUNT`/`CPU_CLR` read and write only inside
    // it (`CPU_CLR` ignores a CPU number beyond the set).
    unsafe {
        let mut allowed: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, size, &raw mut allowed) != 0 || libc::CPU_COUNT(&allowed) < 2
        {
            return;
        }
        libc::CPU_CLR(cpu, &mut allowed);
        // A failure leaves the thread where the system puts it, as before.
        libc::sched_setaffinity(0, size, &raw const allowed);
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn keep_off(_cpu: usize) {}

#[cfg(all(test, any(target_os = "linux", target_os = "android")))]
mod tests {
    /// The CPUs the calling thread may run on.
    fn allowed() -> Vec<usize> {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: as in `keep_off`.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            assert_eq!(libc::sched_getaffinity(0, size, &raw mut set), 0);
            (0..libc::CPU_SETSIZE as usize)
                .filter(|&c| libc::CPU_ISSET(c, &set))
                .collect()
        }
    }

    #[test]
    fn a_worker_is_kept_off_the_main_threads_cpu_when_it_has_another() {
        let before = allowed();
        let main = before[0];
        let after = std::thread::spawn(move || {
            super::keep_off(main);
            allowed()
        })
        .join()
        .unwrap();
        if before.len() < 2 {
            // One CPU: nowhere else to go, so the worker is left as it was.
            assert_eq!(after, before);
        } else {
            let expected: Vec<usize> = before.into_iter().filter(|&c| c != main).collect();
            assert_eq!(after, expected);
        }
        // The calling thread itself is not restricted.
        assert!(allowed().contains(&main));
    }
}
