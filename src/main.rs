fn main() -> std::process::ExitCode {
    pbem::cli::run(std::env::args_os())
}
