//! Records the git commit the engine was built from (`tcplab --version`), with `-dirty`
//! when the engine's sources differed from it. Reruns only when those sources change,
//! so a commit that touches only Python does not relink the engine; outside a git
//! checkout (an sdist) there is no commit and `ENGINE_COMMIT` is empty.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let sources = ["../tcplab/src", "../tcplab/Cargo.toml", "src", "Cargo.toml"];
    for path in sources {
        println!("cargo:rerun-if-changed={path}");
    }
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_default();
    let mut status = vec!["status", "--porcelain", "--"];
    status.extend(sources);
    let dirty = !commit.is_empty() && git(&status).is_some_and(|s| !s.is_empty());
    let suffix = if dirty { "-dirty" } else { "" };
    println!("cargo:rustc-env=TCPLAB_ENGINE_COMMIT={commit}{suffix}");
}
