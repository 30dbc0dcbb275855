//! The `pbem` command: a thin shell over [`pbem::cli`].
//!
//! On Unix the process starts in our own C `main` (`#![no_main]`) rather than in std's.
//! std's start-up reads /proc/self/maps to place the guard it reports stack overflows
//! by, and sets up an alternate signal stack for that report: about 0.1 ms, which is a
//! tenth of all `pbem apply` does besides its durable write, for a message pbem has no
//! use for (the kernel's guard page still stops an overflow; it is reported as a plain
//! SIGSEGV). What else std's start-up does that pbem relies on is done here, and is
//! listed in [`unix::main`].

#![cfg_attr(unix, no_main)]

#[cfg(not(unix))]
fn main() -> std::process::ExitCode {
    pbem::cli::run(std::env::args_os())
}

#[cfg(unix)]
mod unix {
    use std::ffi::{CStr, OsString};
    use std::io::Write;
    use std::os::raw::{c_char, c_int};
    use std::os::unix::ffi::OsStrExt;

    /// The process entry point: what std's start-up would do that pbem needs, then the
    /// command line.
    ///
    /// - Descriptors 0, 1 and 2 are open: a file pbem opens must never become its
    ///   standard output, or a message could be written into a game file.
    /// - SIGPIPE is ignored: a reader that went away (`pbem legal | head`, an SMTP
    ///   server hanging up) is an error pbem handles, not a silent death halfway through
    ///   a command. Children get the default back from std's process spawning.
    /// - Arguments come from `argv`, which every Unix passes here.
    /// - Standard output is flushed before the process ends.
    #[no_mangle]
    extern "C" fn main(argc: c_int, argv: *const *const c_char) -> c_int {
        open_standard_descriptors();
        // SAFETY: setting a signal's disposition to SIG_IGN has no preconditions.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
        let status = pbem::cli::status(arguments(argc, argv));
        let _ = std::io::stdout().flush();
        c_int::from(status)
    }

    /// The C `argv` as OS strings.
    fn arguments(argc: c_int, argv: *const *const c_char) -> Vec<OsString> {
        let count = usize::try_from(argc).unwrap_or(0);
        (0..count)
            .map(|index| {
                // SAFETY: the C runtime passes `argc` valid pointers to NUL-terminated
                // strings that live for the whole process.
                let bytes = unsafe { CStr::from_ptr(*argv.add(index)) }.to_bytes();
                std::ffi::OsStr::from_bytes(bytes).to_owned()
            })
            .collect()
    }

    /// Opens /dev/null on any of descriptors 0, 1 and 2 that is closed; aborts if that
    /// cannot be done, as std does.
    fn open_standard_descriptors() {
        for descriptor in 0..=2 {
            // SAFETY: F_GETFD only reads the descriptor's flags.
            let closed = unsafe { libc::fcntl(descriptor, libc::F_GETFD) } == -1
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF);
            if closed {
                // SAFETY: a NUL-terminated path; open takes the lowest free descriptor,
                // which is this one because the ones below it are open already.
                let opened = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
                if opened != descriptor {
                    std::process::abort();
                }
            }
        }
    }
}
