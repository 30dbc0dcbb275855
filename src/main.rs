//! The `pbem` command: a thin shell over [`pbem::cli`].
//!
//! std's start-up does what pbem relies on: descriptors 0 to 2 are open (a closed one
//! gets /dev/null, so a file pbem opens never becomes its standard output), SIGPIPE is
//! ignored (a reader that went away is an error a command handles, not a silent death
//! halfway through it), and standard output is flushed at the end.

fn main() -> std::process::ExitCode {
    pbem::cli::run(std::env::args_os())
}
