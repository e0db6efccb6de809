// The check runner both client scripts share (interop.mjs, and
// ../interop-v2/modern.mjs): each check prints one `ok`/`FAIL` line, a
// watchdog fails a run that hangs, and `finish` prints the verdict and exits.

// A server that stops answering must fail the run, not hang it.
setTimeout(() => {
  console.log("FAIL timeout: the checks did not finish in 60 s");
  process.exit(1);
}, 60_000).unref();

let failures = 0;

export async function check(name, run) {
  try {
    const detail = await run();
    console.log(`ok   ${name}${detail ? `: ${detail}` : ""}`);
  } catch (error) {
    failures += 1;
    console.log(`FAIL ${name}: ${error?.message ?? error}`);
  }
}

export function expect(condition, message) {
  if (!condition) throw new Error(message);
}

// Prints `<label>: all checks passed` or the count of failures, and exits
// with 0 or 1 accordingly.
export function finish(label) {
  console.log(failures === 0 ? `${label}: all checks passed` : `${label}: ${failures} checks failed`);
  process.exit(failures === 0 ? 0 : 1);
}
