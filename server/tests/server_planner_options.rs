//! The planner's flags as the command line reads them (SURFACE.md §9):
//! none without `--planner-command`; its defaults (1 worker, 4 waiting,
//! 1800 s); arguments kept in order, as given; a relative command path made
//! the server's own; `--public-url` kept without its trailing `/`.

use std::time::Duration;

use chopin_mcp_server::options::{self, Options, PlannerOptions};

fn parse(args: &[&str]) -> Options {
    match options::parse(args.iter().map(|a| a.to_string())) {
        Ok(options::Command::Serve(options)) => options,
        Ok(_) => panic!("{args:?} serves"),
        Err(reason) => panic!("{args:?}: {reason}"),
    }
}

#[test]
fn without_planner_command_there_is_no_planner() {
    let options = parse(&["--memory"]);
    assert_eq!(options.planner, None);
    assert_eq!(options.public_url, None);
}

#[test]
fn the_defaults_and_the_arguments_in_order() {
    let options = parse(&[
        "--planner-command",
        "/usr/local/bin/plan",
        "--planner-arg",
        "--model",
        "--planner-arg",
        "two words",
    ]);
    assert_eq!(
        options.planner,
        Some(PlannerOptions {
            command: "/usr/local/bin/plan".into(),
            args: vec!["--model".into(), "two words".into()],
            workers: 1,
            queue: 4,
            timeout: Duration::from_secs(1800),
        })
    );
    let options = parse(&[
        "--planner-command=plan",
        "--planner-workers=3",
        "--planner-queue=0",
        "--planner-timeout=60",
    ]);
    let planner = options.planner.unwrap();
    // A bare name is looked up in PATH when the turn runs: kept as it is.
    assert_eq!(planner.command, "plan");
    assert_eq!(
        (planner.workers, planner.queue, planner.timeout),
        (3, 0, Duration::from_secs(60))
    );
}

#[test]
fn a_relative_command_path_is_the_servers() {
    let options = parse(&["--planner-command", "./bin/plan.sh"]);
    let expected = std::env::current_dir().unwrap().join("./bin/plan.sh");
    assert_eq!(options.planner.unwrap().command, expected.to_string_lossy());
}

#[test]
fn the_public_url_is_kept_without_its_trailing_slash() {
    for (given, kept) in [
        ("https://plans.example.com/", "https://plans.example.com"),
        (
            "HTTP://127.0.0.1:8080/chopin//",
            "HTTP://127.0.0.1:8080/chopin",
        ),
    ] {
        assert_eq!(
            parse(&["--public-url", given]).public_url.as_deref(),
            Some(kept)
        );
    }
}
