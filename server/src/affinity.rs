//! One worker per CPU, each kept on its own CPU (Linux).
//!
//! `chopin-mcp-server` runs one single-threaded runtime per CPU, and a
//! connection stays on one runtime for its life. Left to the scheduler, two
//! busy runtime threads can share one CPU while another CPU runs something
//! else (a load generator, another process): every connection of the
//! runtime that waits then waits a whole scheduler slice, milliseconds, and
//! that is the request latency's tail (`perf sched latency` showed 8 ms
//! waits; `benches/history/loopback.md` has the measurements). Kept on CPUs of their own, the
//! runtimes never queue behind each other.
//!
//! Workers are pinned only when the process may run on exactly as many CPUs
//! as there are workers: under a CPU quota (`available_parallelism` below
//! the affinity mask) or with `--workers` set to another count, nothing is
//! pinned. Threads the runtimes start for blocking work (SQLite creates,
//! which wait for the disk) get the whole mask back, so they never queue
//! behind a worker.

/// The CPUs this process may run on, as the kernel reported them when the
/// server started, before any worker was pinned.
#[derive(Clone, Copy)]
pub struct Mask(imp::Set);

impl Mask {
    /// The calling thread's affinity mask; `None` where there is none to
    /// read (not Linux, or the call failed).
    pub fn current() -> Option<Mask> {
        imp::current().map(Mask)
    }

    /// The CPUs in the mask, lowest first.
    pub fn cpus(&self) -> Vec<usize> {
        imp::cpus(&self.0)
    }

    /// Puts the calling thread back on every CPU of the mask.
    pub fn restore(&self) {
        // A thread that keeps a narrower mask still runs: nothing to undo.
        let _ = imp::set(&self.0);
    }
}

/// The CPU for each of `workers` workers, worker 0 first: the mask's CPUs
/// when there are exactly `workers` of them, else `None` (pin nothing).
pub fn plan(mask: Option<&Mask>, workers: usize) -> Option<Vec<usize>> {
    let cpus = mask?.cpus();
    (cpus.len() == workers).then_some(cpus)
}

/// Keeps the calling thread on `cpu`.
pub fn pin(cpu: usize) -> std::io::Result<()> {
    imp::set(&imp::only(cpu)?)
}

#[cfg(target_os = "linux")]
mod imp {
    use std::io;
    use std::mem;

    pub type Set = libc::cpu_set_t;

    pub fn current() -> Option<Set> {
        // SAFETY: `cpu_set_t` is plain bits; all zeros is the empty set.
        let mut set: Set = unsafe { mem::zeroed() };
        // SAFETY: the size passed is the size of `set`; pid 0 is this thread.
        let done = unsafe { libc::sched_getaffinity(0, mem::size_of::<Set>(), &mut set) };
        (done == 0).then_some(set)
    }

    pub fn cpus(set: &Set) -> Vec<usize> {
        let size = libc::CPU_SETSIZE as usize;
        // SAFETY: every index is below CPU_SETSIZE, the set's capacity.
        (0..size)
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, set) })
            .collect()
    }

    pub fn only(cpu: usize) -> io::Result<Set> {
        if cpu >= libc::CPU_SETSIZE as usize {
            return Err(io::Error::from(io::ErrorKind::InvalidInput));
        }
        // SAFETY: as in `current`; `cpu` is below CPU_SETSIZE (checked).
        let mut set: Set = unsafe { mem::zeroed() };
        unsafe { libc::CPU_SET(cpu, &mut set) };
        Ok(set)
    }

    pub fn set(set: &Set) -> io::Result<()> {
        // SAFETY: the size passed is the size of `set`; pid 0 is this thread.
        match unsafe { libc::sched_setaffinity(0, mem::size_of::<Set>(), set) } {
            0 => Ok(()),
            _ => Err(io::Error::last_os_error()),
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::io;

    /// No affinity masks here: nothing is read, nothing pinned.
    #[derive(Clone, Copy)]
    pub enum Set {}

    pub fn current() -> Option<Set> {
        None
    }

    pub fn cpus(set: &Set) -> Vec<usize> {
        match *set {}
    }

    pub fn only(_: usize) -> io::Result<Set> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }

    pub fn set(set: &Set) -> io::Result<()> {
        match *set {}
    }
}
