//! One planner turn as a process: the command and its arguments, run
//! without a shell in the document's working directory, with a cleared
//! environment but for the four `CHOPIN_*` variables, the instruction on
//! its standard input, its standard output and error gathered (the first
//! 64 KiB kept, the rest read and dropped), and its process group killed
//! at the timeout (and once it exits, so that nothing it started lingers).
#![allow(clippy::disallowed_methods)] // the timeout reads the server's clock

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::options::PlannerOptions;
use crate::store::TurnEnd;

/// The most output a turn's row and log line keep.
pub const MAX_OUTPUT: usize = 64 * 1024;

/// How often a running turn is looked at for its end.
const POLL: Duration = Duration::from_millis(20);

/// Runs one turn to its end: `env` is the whole environment the command
/// gets, `dir` its working directory.
pub fn turn(
    options: &PlannerOptions,
    dir: &Path,
    env: &[(&str, &str)],
    instruction: &str,
) -> TurnEnd {
    let mut command = Command::new(&options.command);
    command
        .args(&options.args)
        .env_clear()
        .envs(env.iter().copied())
        .current_dir(dir)
        .stdin(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let failed = |e: std::io::Error| TurnEnd {
        state: "failed",
        exit_status: None,
        output: format!("cannot start {}: {e}", options.command).into_bytes(),
    };
    let joined = match output_pipe() {
        Ok(pipe) => pipe,
        Err(e) => return failed(e),
    };
    let joined = match joined {
        Some((read, write)) => {
            let copy = match write.try_clone() {
                Ok(copy) => copy,
                Err(e) => return failed(e),
            };
            command.stdout(copy).stderr(write);
            Some(read)
        }
        None => {
            command.stdout(Stdio::piped()).stderr(Stdio::piped());
            None
        }
    };
    let spawned = command.spawn();
    // The command holds the pipe's write end now: this process's copies
    // close, so that the reader sees its end when the command's group ends.
    drop(command);
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => return failed(e),
    };
    let output = Arc::new(Mutex::new(Vec::new()));
    let mut readers: Vec<JoinHandle<()>> = Vec::with_capacity(3);
    if let Some(mut stdin) = child.stdin.take() {
        let instruction = instruction.to_owned();
        // A command that never reads its input gets EPIPE: not an error.
        readers.push(std::thread::spawn(move || {
            let _ = stdin.write_all(instruction.as_bytes());
        }));
    }
    if let Some(read) = joined {
        readers.push(gather(read, Arc::clone(&output)));
    }
    if let Some(stdout) = child.stdout.take() {
        readers.push(gather(stdout, Arc::clone(&output)));
    }
    if let Some(stderr) = child.stderr.take() {
        readers.push(gather(stderr, Arc::clone(&output)));
    }
    let (state, exit_status) = wait(&mut child, options.timeout);
    // Whatever the command left running in its group goes with it: its
    // pipes then close, and the readers end.
    kill_group(&mut child);
    for reader in readers {
        let _ = reader.join();
    }
    let output = std::mem::take(&mut *output.lock().unwrap_or_else(|e| e.into_inner()));
    TurnEnd {
        state,
        exit_status,
        output,
    }
}

/// Waits for the command to exit, at most `timeout`: `exited` and its
/// code (none when a signal ended it), or `timed-out`.
fn wait(child: &mut Child, timeout: Duration) -> (&'static str, Option<i32>) {
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return ("exited", status.code()),
            Ok(None) if Instant::now() >= deadline => return ("timed-out", None),
            Ok(None) => std::thread::sleep(POLL),
            Err(_) => return ("exited", None),
        }
    }
}

/// One pipe for the command's standard output and error both, so that its
/// output is kept in the order it was written: the read end and the write
/// end (close-on-exec: no other child inherits them). Elsewhere than Linux,
/// none: the two are read apart.
#[cfg(target_os = "linux")]
fn output_pipe() -> std::io::Result<Option<(File, File)>> {
    use std::os::fd::FromRawFd;
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2(2) writes two new descriptors into `fds`, which has
    // room for two; on failure it writes none.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just made, and nothing else owns them.
    let ends = unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) };
    Ok(Some(ends))
}

#[cfg(not(target_os = "linux"))]
fn output_pipe() -> std::io::Result<Option<(File, File)>> {
    Ok(None)
}

/// Reads `pipe` to its end, keeping what fits in [`MAX_OUTPUT`].
fn gather(mut pipe: impl Read + Send + 'static, output: Arc<Mutex<Vec<u8>>>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buffer = [0u8; 8192];
        loop {
            match pipe.read(&mut buffer) {
                Ok(0) | Err(_) => return,
                Ok(read) => {
                    let mut kept = output.lock().unwrap_or_else(|e| e.into_inner());
                    let room = MAX_OUTPUT.saturating_sub(kept.len());
                    kept.extend_from_slice(&buffer[..read.min(room)]);
                }
            }
        }
    })
}

/// Kills the command's process group (it leads one of its own), then
/// reaps the command.
#[cfg(target_os = "linux")]
fn kill_group(child: &mut Child) {
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) with a negated process id signals that process
        // group; it touches no memory of this process. The group is the
        // command's own (`process_group(0)`): its id stays taken while the
        // command is unreaped (a timeout) or any process of the group lives
        // (after an exit); with none left, the signal finds no one.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Kills the command (elsewhere than Linux, its group is not reached).
#[cfg(not(target_os = "linux"))]
fn kill_group(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, timeout: Duration) -> PlannerOptions {
        PlannerOptions {
            command: "/bin/sh".to_owned(),
            args: vec!["-c".to_owned(), script.to_owned()],
            workers: 1,
            queue: 0,
            timeout,
        }
    }

    #[test]
    fn output_keeps_the_order_of_standard_output_and_error() {
        let options = sh(
            // External commands, each ending before the next begins (a
            // shell's own builtins may buffer what they write).
            "/bin/echo one; /bin/echo two >&2; /bin/cat; /bin/echo three >&2",
            Duration::from_secs(10),
        );
        let end = turn(&options, Path::new("/"), &[], "stdin\n");
        assert_eq!(
            String::from_utf8_lossy(&end.output),
            "one\ntwo\nstdin\nthree\n"
        );
        assert_eq!((end.state, end.exit_status), ("exited", Some(0)));
    }

    #[test]
    fn output_past_64_kib_is_read_and_dropped() {
        let options = sh("/usr/bin/head -c 200000 /dev/zero", Duration::from_secs(10));
        let end = turn(&options, Path::new("/"), &[], "");
        assert_eq!(end.output.len(), MAX_OUTPUT);
        assert_eq!((end.state, end.exit_status), ("exited", Some(0)));
    }

    #[test]
    fn a_command_that_cannot_start_is_failed() {
        let mut options = sh("", Duration::from_secs(10));
        options.command = "/no/such/planner".to_owned();
        let end = turn(&options, Path::new("/"), &[], "");
        assert_eq!((end.state, end.exit_status), ("failed", None));
        assert!(String::from_utf8_lossy(&end.output).starts_with("cannot start /no/such/planner"));
    }
}
