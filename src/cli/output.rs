//! Printing that survives a reader going away. std's `println!` panics when standard
//! output is a closed pipe (`pbem apply ... | true`), which would end a command that
//! has already done its work with an abort and a false exit status. These write what
//! they can and carry on; the exit status stays the command's own.

use std::io::Write;

/// Writes to standard output, ignoring a closed or failing reader.
pub fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

/// Writes to standard error, ignoring a closed or failing reader.
pub fn err(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// `print!` that never panics (see the module documentation).
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::output::out(&format!($($arg)*)) };
}

/// `println!` that never panics (see the module documentation).
macro_rules! outln {
    () => { $crate::cli::output::out("\n") };
    ($($arg:tt)*) => { $crate::cli::output::out(&format!("{}\n", format_args!($($arg)*))) };
}

/// `eprintln!` that never panics (see the module documentation).
macro_rules! errln {
    ($($arg:tt)*) => { $crate::cli::output::err(&format!("{}\n", format_args!($($arg)*))) };
}
