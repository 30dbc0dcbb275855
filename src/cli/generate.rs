//! Shell completions and man pages, generated from the command line's definition so
//! that they never disagree with it (the Debian package ships both).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::CommandFactory;

#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

#[derive(Debug, clap::Args)]
pub struct ManpagesArgs {
    /// The folder to write pbem.1 and one page per subcommand (pbem-apply.1, ...) into
    #[arg(value_name = "DIR")]
    dir: PathBuf,
}

pub fn completions(args: CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut command = super::Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "pbem", &mut script);
    super::emit(&String::from_utf8_lossy(&script))?;
    Ok(ExitCode::SUCCESS)
}

pub fn manpages(args: ManpagesArgs) -> anyhow::Result<ExitCode> {
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("cannot make the folder {}", args.dir.display()))?;
    let command = super::Cli::command();
    clap_mangen::generate_to(command, &args.dir)
        .with_context(|| format!("cannot write the man pages in {}", args.dir.display()))?;
    Ok(ExitCode::SUCCESS)
}
