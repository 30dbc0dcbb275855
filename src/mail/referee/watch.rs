//! `pbem watch`: one long-running process that does what the README's cron lines do,
//! round after round: one inbox pass (an IMAP mailbox or a Maildir), one flush of every
//! outbox, and, when `[deadlines]` is configured, one reminder pass. It adds no rule of
//! its own: each step is the function the cron commands call, so cron and watch never
//! disagree.
//!
//! Between rounds it waits: on an IMAP server that has IDLE, until mail arrives (or
//! something else falls due); otherwise for the poll interval. A fault (the server
//! gone, the network down, a full disk) is logged and the round is tried again after a
//! pause that doubles up to [`MAX_PAUSE`]; nothing is lost meanwhile, since a message
//! is only marked done once handled. Mail that could not be sent is tried again with
//! the same growing pause. A fault that holds back only one game's messages (its file
//! cut short, its archive not a folder, no room to write it) makes no pause for the
//! others: the wait stays in IDLE, which new mail ends, and the held messages are
//! tried again after a pause that grows as a fault's does. It is logged once (and
//! once more when it is over), and the referee is mailed once.
//!
//! One watch per games folder (`DIR/.pbem-watch.lock`): a second refuses. SIGTERM or
//! SIGINT stop it between two messages; a wait in IDLE is cut short at once.
//!
//! An IDLE lasts at most `--idle-check` (then a round runs), and its end must be
//! answered within the timeout: a server whose process is stopped, or a network gone
//! quiet, says nothing, and this is where it shows. It is logged ("did not answer
//! within N s; connecting again"), the connection is opened again after the wait, and
//! "connected again" is logged once it is back.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

use super::mailer::Referee;
use crate::basics::store;
use crate::engine::Deadline;
use crate::mail::inbound::imap::{ImapMailbox, Opened};
use crate::mail::inbound::in_order::Handled;
use crate::mail::inbound::maildir;
use crate::mail::MailError;

/// The longest pause after a fault, and between retries of mail that could not go.
pub const MAX_PAUSE: Duration = Duration::from_secs(15 * 60);
/// The first pause after a fault.
const FIRST_PAUSE: Duration = Duration::from_secs(5);
/// How often reminders and digests due are looked for (each player is reminded at most
/// once per `after`, and sent a digest at most once a day, whatever this is).
const REMIND_EVERY: Duration = Duration::from_secs(10 * 60);
/// The longest IDLE before it is renewed (RFC 2177 asks for less than 29 minutes),
/// whatever `--idle-check` asks.
pub const IDLE_AT_MOST: Duration = Duration::from_secs(25 * 60);

/// Where players' mail is read from.
pub enum Source {
    Maildir(PathBuf),
    Imap(ImapMailbox),
}

/// Reminders and the referee's choice past a limit (`[deadlines]` in config.toml).
#[derive(Debug, Clone, Copy)]
pub struct Deadlines {
    /// Seconds a player may keep a game waiting before a reminder.
    pub after: u64,
    /// Seconds after the turn notice, and what happens then; `None`: keep waiting.
    pub limit: Option<(u64, Deadline)>,
}

/// What one watch does.
pub struct Watch<'a> {
    pub referee: &'a Referee,
    pub games: PathBuf,
    pub source: Source,
    pub deadlines: Option<Deadlines>,
    /// How long to wait between rounds when no mail arrives.
    pub poll: Duration,
    /// The longest IDLE before it is ended, the server must answer, and a round runs.
    pub idle_check: Duration,
    /// What the round's IMAP pass had to say of its progress file.
    notes: Cell<Vec<String>>,
    /// The connection that could not be opened again after a wait: the next round's
    /// fault, as a failure to connect there would be.
    unconnected: Cell<Option<MailError>>,
}

/// How long `pbem watch` waits.
#[derive(Debug, Clone, Copy)]
pub struct Waits {
    /// Between rounds, when no mail ends the wait sooner.
    pub poll: Duration,
    /// In one IDLE, before it is ended and the server must answer ([`IDLE_AT_MOST`]
    /// at most).
    pub idle_check: Duration,
}

/// Set when SIGTERM or SIGINT arrives.
static STOP: AtomicBool = AtomicBool::new(false);
/// The socket an IDLE waits on, or -1: the signal handler shuts it down so that the
/// wait ends at once.
static IDLE_SOCKET: AtomicI32 = AtomicI32::new(-1);

/// Makes SIGTERM and SIGINT ask the watch to stop (between two messages).
pub fn stop_on_signals() {
    extern "C" fn handler(_signal: libc::c_int) {
        STOP.store(true, Ordering::SeqCst);
        let socket = IDLE_SOCKET.load(Ordering::SeqCst);
        if socket >= 0 {
            // shutdown(2) is async-signal-safe; the IDLE's read then returns at once.
            // SAFETY: a plain system call on a descriptor the watch holds open.
            unsafe {
                libc::shutdown(socket, libc::SHUT_RDWR);
            }
        }
    }
    for signal in [libc::SIGTERM, libc::SIGINT] {
        // SAFETY: the handler only touches atomics and calls shutdown(2).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

fn stopping() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// A pause that doubles after each failure, up to [`MAX_PAUSE`].
struct Backoff(Option<Duration>);

impl Backoff {
    fn failed(&mut self) -> Duration {
        let next = self
            .0
            .map_or(FIRST_PAUSE, |pause| (pause * 2).min(MAX_PAUSE));
        self.0 = Some(next);
        next
    }

    fn succeeded(&mut self) {
        self.0 = None;
    }
}

/// What a round left to do.
#[derive(Debug, Default)]
pub struct Round {
    /// A fault that holds messages back, to be tried again.
    pub fault: bool,
    /// What a fault with one game holds back (its messages, its outbox), as the log
    /// says it: tried again every round, with no pause for the others.
    pub held: Vec<String>,
    /// Mail still waiting in an outbox.
    pub waiting: usize,
}

impl Watch<'_> {
    /// Runs rounds until SIGTERM or SIGINT (or after one round with `once`), logging
    /// one line per event with `log`.
    ///
    /// # Errors
    /// Another watch runs for the folder, or (with `once`) the round's first fault.
    pub fn run(&self, once: bool, log: &mut dyn FnMut(&str)) -> Result<Round, MailError> {
        let lock_path = self.games.join(".pbem-watch");
        let Some(_lock) = store::try_lock(&lock_path)? else {
            return Err(MailError::Config(format!(
                "another pbem watch is running for {}: one per games folder",
                self.games.display()
            )));
        };
        let mut connection: Option<Opened> = None;
        let mut faults = Backoff(None);
        let mut unsent = Backoff(None);
        let mut held_pause = Backoff(None);
        let mut last_reminders: Option<Instant> = None;
        let mut last_held: Vec<String> = Vec::new();
        if !once {
            log(&format!(
                "watching {} for mail from {}",
                self.games.display(),
                self.source_shown()
            ));
        }
        loop {
            let round = self.round(&mut connection, &mut last_reminders, once, log);
            if once {
                return Ok(round);
            }
            // What a game's fault holds is logged when it first shows, and once all
            // of it is over.
            for held in round.held.iter().filter(|held| !last_held.contains(held)) {
                log(held);
            }
            if round.held.is_empty() && !last_held.is_empty() {
                log("nothing is held back any more");
            }
            last_held = round.held.clone();
            if stopping() {
                break;
            }
            let mut wait = self.poll;
            if round.fault {
                wait = faults.failed();
                log(&format!("trying again in {}", seconds_text(wait)));
            } else {
                faults.succeeded();
            }
            // What one game's fault holds is tried again after the same growing
            // pause, but the wait stays in IDLE: new mail for the others ends it.
            if round.held.is_empty() {
                held_pause.succeeded();
            } else {
                wait = wait.min(held_pause.failed());
            }
            if round.waiting > 0 {
                wait = wait.min(unsent.failed());
            } else {
                unsent.succeeded();
            }
            // The reminders' and digests' pass comes round even with no mail.
            wait = wait.min(REMIND_EVERY);
            self.wait(&mut connection, wait, round.fault, log);
            if stopping() {
                break;
            }
        }
        if let Some(opened) = connection.as_mut() {
            let _ = opened.session.logout();
        }
        log("stopped");
        Ok(Round::default())
    }

    fn source_shown(&self) -> String {
        match &self.source {
            Source::Maildir(dir) => format!("the Maildir {}", dir.display()),
            Source::Imap(mailbox) => mailbox.shown(),
        }
    }

    /// One round: an inbox pass, a flush of every outbox, reminders when due.
    fn round(
        &self,
        connection: &mut Option<Opened>,
        last_reminders: &mut Option<Instant>,
        once: bool,
        log: &mut dyn FnMut(&str),
    ) -> Round {
        let mut round = Round::default();
        let mut report = |name: &str, handled: &Handled| {
            let detail = crate::words::inert(&handled.detail, crate::basics::echo::MESSAGE_CHARS);
            match &handled.game {
                Some(game) => log(&format!(
                    "inbox: {name}: {}: {}: {detail}",
                    game.display(),
                    handled.outcome
                )),
                // Cron mails what a run prints to the mailbox it reads: a line about
                // its own report would make the next run's report, for ever.
                None if once => {}
                None => log(&format!(
                    "inbox: {name}: {} (for no game; left unread)",
                    handled.outcome
                )),
            }
        };
        if let Err(error) = self.inbox(connection, &mut report) {
            if let MailError::HeldBack { fault, .. } = &error {
                // Logged by `run` when it changes; with `once`, as any fault.
                if once {
                    log(&format!("inbox: {error}"));
                }
                round.held.push(format!(
                    "inbox: held back: {fault}; what it holds is tried again every round, and the referee is told by mail"
                ));
            } else if matches!(error, MailError::Receive(_)) {
                round.fault = true;
                // The connection may be broken: the next round opens a new one.
                *connection = None;
                log(&format!(
                    "imap: {error}; connecting again, the messages not handled wait"
                ));
            } else {
                round.fault = true;
                log(&format!("inbox: {error}; the messages not handled wait"));
            }
        }
        self.log_unasked(log);
        // Said after the pass: its report holds the log while it runs.
        for note in self.notes.take() {
            log(&format!("imap: {note}"));
        }
        if stopping() {
            return round;
        }
        match super::games::game_files(&self.games) {
            Ok(files) => {
                for (label, flushed) in self.referee.flush_each(&files, Some(&self.games)) {
                    match flushed {
                        Ok(flushed) => {
                            round.waiting += flushed.waiting;
                            if flushed.sent > 0 {
                                log(&format!("mail: {}: {} sent", label.display(), flushed.sent));
                            }
                            for message in &flushed.refused {
                                log(&format!(
                                    "mail: {}: to {} refused for good, set aside as {}: {}",
                                    label.display(),
                                    message.to.join(", "),
                                    message.id,
                                    message.reason.as_deref().unwrap_or_default()
                                ));
                            }
                            if flushed.waiting > 0 {
                                log(&format!(
                                    "mail: {}: {} waiting{}",
                                    label.display(),
                                    flushed.waiting,
                                    flushed.error.map(|e| format!(" ({e})")).unwrap_or_default()
                                ));
                            }
                        }
                        // One game's outbox (its file cut short, say): that game's
                        // fault, which holds no other game's mail.
                        Err(error) if files.contains(&label) => {
                            let line = format!(
                                "mail: {}: {error}; that game's mail waits and is tried again every round",
                                label.display()
                            );
                            if once {
                                log(&line);
                            }
                            round.held.push(line);
                        }
                        Err(error) => {
                            round.fault = true;
                            log(&format!("mail: {}: {error}", label.display()));
                        }
                    }
                }
            }
            Err(error) => {
                round.fault = true;
                log(&format!("mail: {error}"));
            }
        }
        // Reminders, when deadlines are configured, and the day's digests: both a
        // pass over every game, at most once per REMIND_EVERY.
        let due = last_reminders.is_none_or(|at| at.elapsed() >= REMIND_EVERY);
        if due && !stopping() {
            *last_reminders = Some(Instant::now());
            let (label, pass) = match self.deadlines {
                Some(deadlines) => (
                    "deadlines",
                    self.referee
                        .remind(&self.games, deadlines.after, deadlines.limit),
                ),
                None => ("digests", self.referee.send_digests(&self.games)),
            };
            match pass {
                Ok(done) => {
                    for (file, what) in done {
                        log(&format!("{label}: {}: {what}", file.display()));
                    }
                    // A skip or forfeit past a deadline can bring a built-in player's turn.
                    self.log_unasked(log);
                }
                Err(error) => {
                    round.fault = true;
                    log(&format!("{label}: {error}"));
                }
            }
        }
        round
    }

    /// Logs the moves made unasked since the last call: a built-in player's, or one
    /// the rules forced, after the move that brought its turn.
    fn log_unasked(&self, log: &mut dyn FnMut(&str)) {
        for (game, line) in self.referee.take_unasked() {
            let line = crate::words::inert(&line, crate::basics::echo::MESSAGE_CHARS);
            log(&format!("inbox: {}: {line}", game.display()));
        }
    }

    fn inbox(
        &self,
        connection: &mut Option<Opened>,
        report: &mut dyn FnMut(&str, &Handled),
    ) -> Result<usize, MailError> {
        match &self.source {
            Source::Maildir(dir) => {
                maildir::process_until(self.referee, &self.games, dir, report, &stopping)
            }
            Source::Imap(mailbox) => {
                if let Some(error) = self.unconnected.take() {
                    return Err(error);
                }
                if connection.is_none() {
                    *connection = Some(mailbox.connect()?);
                }
                let Some(opened) = connection.as_mut() else {
                    return Ok(0);
                };
                let mut notes = Vec::new();
                let mut note = |line: &str| notes.push(line.to_string());
                let pass = mailbox.process_in(
                    opened,
                    self.referee,
                    &self.games,
                    report,
                    &mut note,
                    &stopping,
                );
                self.notes.set(notes);
                pass
            }
        }
    }

    /// Waits up to `wait`: in IDLE when the server has it (new mail ends the wait),
    /// else asleep; SIGTERM ends either at once. A connection lost (in the round or in
    /// IDLE) is then opened again, and said to be back.
    fn wait(
        &self,
        connection: &mut Option<Opened>,
        wait: Duration,
        after_fault: bool,
        log: &mut dyn FnMut(&str),
    ) {
        let idle = !after_fault && connection.as_ref().is_some_and(|opened| opened.idle);
        if idle {
            self.idle(connection, wait, log);
        } else {
            let until = Instant::now() + wait;
            while !stopping() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(200));
            }
        }
        self.reconnect(connection, log);
    }

    /// Waits in one IDLE, up to `wait` and `idle_check`: a round follows, and an IDLE
    /// whose end the server does not answer in time drops the connection.
    fn idle(&self, connection: &mut Option<Opened>, wait: Duration, log: &mut dyn FnMut(&str)) {
        let Some(opened) = connection.as_mut() else {
            return;
        };
        IDLE_SOCKET.store(opened.socket, Ordering::SeqCst);
        let outcome = if stopping() {
            Ok(true)
        } else {
            opened.idle_for(wait.min(self.idle_check).min(IDLE_AT_MOST))
        };
        IDLE_SOCKET.store(-1, Ordering::SeqCst);
        if let Err(error) = outcome {
            if !stopping() {
                log(&format!("imap: {error}; connecting again"));
            }
            *connection = None;
        }
    }

    /// Opens the IMAP connection again when it was lost, and says so once it is back;
    /// a failure is left for the next round to report, as its own failure to connect
    /// would be (no second attempt, no second wait).
    fn reconnect(&self, connection: &mut Option<Opened>, log: &mut dyn FnMut(&str)) {
        let Source::Imap(mailbox) = &self.source else {
            return;
        };
        if connection.is_some() || stopping() {
            return;
        }
        match mailbox.connect() {
            Ok(opened) => {
                log(&format!("imap: connected again to {}", mailbox.shown()));
                *connection = Some(opened);
            }
            Err(error) => self.unconnected.set(Some(error)),
        }
    }
}

/// `5s`, `2m 30s`, as a log shows a pause.
fn seconds_text(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match (seconds / 60, seconds % 60) {
        (0, s) => format!("{s}s"),
        (m, 0) => format!("{m}m"),
        (m, s) => format!("{m}m {s}s"),
    }
}

/// `pbem watch`: the referee that mails as `mailing` says, watching the games of
/// `games` with mail read from `maildir` (else from the IMAP mailbox of the mail
/// settings), reminding as `[deadlines]` of config.toml says; one round with `once`,
/// else round after round until SIGTERM or SIGINT. Every event is one line to `log`.
///
/// # Errors
/// Unusable mail settings or `[deadlines]`, or a fault that ends the watch (another
/// watch of the folder, say); a fault in a round is logged and tried again instead.
pub fn watch(
    keyring: crate::engine::keyring::Keyring,
    games: PathBuf,
    maildir: Option<PathBuf>,
    once: bool,
    waits: Waits,
    mailing: &super::actions::Mailing,
    log: &mut dyn FnMut(&str),
) -> Result<Round, MailError> {
    let referee = mailing.referee(keyring)?;
    let source = match maildir {
        Some(dir) => Source::Maildir(dir),
        None => Source::Imap(ImapMailbox::from_settings(referee.settings())?),
    };
    let deadlines = deadlines_from_config(referee.keyring().home())?;
    let watch = Watch {
        referee: &referee,
        games,
        source,
        deadlines,
        poll: waits.poll,
        idle_check: waits.idle_check,
        notes: Cell::new(Vec::new()),
        unconnected: Cell::new(None),
    };
    if !once {
        stop_on_signals();
    }
    watch.run(once, log)
}

/// The `[deadlines]` table of `PBEM_HOME/config.toml`: `after = "3d"`, `limit =
/// "14d"`, `then = "wait"` (or `skip`, `forfeit`); `None` when there is none.
///
/// # Errors
/// The file cannot be read, or the table is not valid.
pub fn deadlines_from_config(home: &Path) -> Result<Option<Deadlines>, MailError> {
    #[derive(serde::Deserialize)]
    struct File {
        deadlines: Option<Table>,
    }
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Table {
        after: String,
        limit: Option<String>,
        then: Option<String>,
    }
    let path = home.join("config.toml");
    let text = match store::read_text_limited(&path, store::MAX_SMALL_FILE_BYTES) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(MailError::io(&path)(error)),
    };
    let invalid = |why: String| {
        MailError::Config(format!(
            "[deadlines] in {} is not valid: {why}; write after = \"3d\", limit = \"14d\", then = \"wait\" (or \"skip\", \"forfeit\")",
            path.display()
        ))
    };
    let file: File = toml::from_str(&text).map_err(|e| invalid(e.message().to_string()))?;
    let Some(table) = file.deadlines else {
        return Ok(None);
    };
    let seconds = |text: &str| {
        crate::basics::duration::parse(text, Duration::from_secs(86_400))
            .map(|d| d.as_secs())
            .map_err(invalid)
    };
    let after = seconds(&table.after)?;
    let then = match table.then.as_deref().unwrap_or("wait") {
        "wait" => None,
        "skip" => Some(Deadline::Skip),
        "forfeit" => Some(Deadline::Forfeit),
        other => return Err(invalid(format!("then = {other:?}"))),
    };
    let limit = match (table.limit.as_deref(), then) {
        (Some(limit), Some(then)) => Some((seconds(limit)?, then)),
        (None, Some(_)) => return Err(invalid("then = skip or forfeit needs a limit".into())),
        (_, None) => None,
    };
    Ok(Some(Deadlines { after, limit }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_double_up_to_the_most_and_start_again_after_a_success() {
        let mut backoff = Backoff(None);
        let pauses: Vec<u64> = (0..10).map(|_| backoff.failed().as_secs()).collect();
        assert_eq!(pauses, [5, 10, 20, 40, 80, 160, 320, 640, 900, 900]);
        backoff.succeeded();
        assert_eq!(backoff.failed(), FIRST_PAUSE);
    }

    #[test]
    fn deadlines_are_read_from_the_config() {
        let home = tempfile::tempdir().expect("dir");
        assert!(deadlines_from_config(home.path()).expect("none").is_none());
        let config = home.path().join("config.toml");
        std::fs::write(
            &config,
            "[deadlines]\nafter = \"3d\"\nlimit = \"14d\"\nthen = \"forfeit\"\n",
        )
        .expect("write");
        let read = deadlines_from_config(home.path())
            .expect("valid")
            .expect("some");
        assert_eq!(read.after, 3 * 86_400);
        assert_eq!(read.limit, Some((14 * 86_400, Deadline::Forfeit)));
        std::fs::write(&config, "[deadlines]\nafter = \"3d\"\nthen = \"skip\"\n").expect("write");
        let error = deadlines_from_config(home.path()).expect_err("no limit");
        assert!(error.to_string().contains("needs a limit"), "{error}");
        std::fs::write(&config, "[deadlines]\nafter = \"soon\"\n").expect("write");
        let error = deadlines_from_config(home.path()).expect_err("not a duration");
        assert!(error.to_string().contains("after = \"3d\""), "{error}");
    }
}
