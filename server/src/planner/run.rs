//! One planner turn as a process: the command and its arguments, run
//! without a shell in the document's working directory, with a cleared
//! environment but for the four `CHOPIN_*` variables, the instruction on
//! its standard input, its standard output and error gathered (the first
//! 64 KiB kept, the rest read and dropped), and its process group killed
//! at the timeout (and once it exits, so that nothing it started lingers).
#![allow(clippy::disallowed_methods)] // the timeout reads the server's clock

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
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            return TurnEnd {
                state: "failed",
                exit_status: None,
                output: format!("cannot start {}: {e}", options.command).into_bytes(),
            };
        }
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
