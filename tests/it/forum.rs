//! Forum posts (`pbem show --format bbcode|markdown`): the state of play as text
//! above the board and only the board in the code block, snapshots of both markups
//! mid-game and at the end, player names that could break out of the code block
//! refused at `pbem new` and the others escaped, and the posts rendered as a forum
//! renders them and measured in headless Chromium.
//!
//! The browser test needs Debian's `chromium` and PyPI's `markdown-it-py` (.ci/run
//! installs both as root). Without them it says "skipped" on standard error; with
//! PBEM_REQUIRE_BROWSER=1 (.ci/run sets it as root) it fails instead.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use pbem::ops::ForumMarkup;
use serde_json::Value;

use super::support::{self, to_move, Table, CHROMIUM};

const SEED: &str = "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed";
/// Turns played before the mid-game posts.
const MID_GAME: usize = 9;
const WIDTH: usize = 78;

/// Plays up to `turns` moves through `pbem apply`, each the first right-of-way
/// purchase `pbem legal` lists, or its first move when there is none (purchases put
/// stacks on the board); stops early at the end of the game.
fn play(table: &Table, turns: usize) {
    for _ in 0..turns {
        let view = table.view();
        if view["to_move"].as_array().is_none_or(Vec::is_empty) {
            return;
        }
        let player = to_move(&view);
        let legal = table.legal(&player);
        let chosen = legal
            .iter()
            .find(|m| m["kind"] == "buy")
            .or_else(|| legal.first())
            .expect("a move for the player to move");
        let text = chosen["move"].as_str().expect("a move text");
        let (ok, err) = table.apply(&player, text);
        assert!(ok, "{player}: {text}: {err}");
    }
}

fn post(table: &Table, format: &str, extra: &[&str]) -> String {
    let output = table
        .pbem()
        .arg("show")
        .arg(table.file())
        .args(["--format", format])
        .args(extra)
        .output()
        .expect("pbem runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("a post is UTF-8")
}

/// The text between a code block's opening and closing lines, and what is left
/// around it (the first block only).
fn split_code<'a>(post: &'a str, open: &str, close: &str) -> (&'a str, &'a str, &'a str) {
    let start = post.find(open).expect("a code block");
    let inner = start + open.len();
    let end = inner + post[inner..].find(close).expect("the code block closes");
    (
        &post[..start],
        &post[inner..end],
        &post[end + close.len()..],
    )
}

/// What every post must be: short lines, the status above the one board block,
/// nothing but the board inside it, and no secret.
fn check_layout(post: &str, markup: ForumMarkup, table: &Table) {
    for line in post.lines() {
        assert!(line.chars().count() <= WIDTH, "too wide: {line:?}\n{post}");
    }
    let (open, close) = match markup {
        ForumMarkup::Bbcode => ("[code]\n", "\n[/code]"),
        ForumMarkup::Markdown => ("```text\n", "\n```"),
    };
    let (status, board, _) = split_code(post, open, close);
    let view = table.view();
    let turn = view["turn"].as_u64().expect("a turn");
    assert!(status.contains(&format!("turn {turn}")), "{status}");
    assert!(status.contains("Scores: "), "{status}");
    if view["over"] == true {
        assert!(
            status.contains("The game is over")
                && (status.contains("Winner") || status.contains("Nobody won")),
            "{status}"
        );
    } else {
        assert!(status.contains("To move: "), "{status}");
    }
    if turn > 0 {
        assert!(
            status.contains(&format!("Last move, turn {turn}, ")),
            "{status}"
        );
    }
    assert!(
        !board.contains("Scores:") && !board.contains("To move"),
        "{board}"
    );
    let ascii = post_free_board(table);
    assert!(
        ascii.starts_with(board),
        "the block holds the board:\n{board}"
    );
    assert!(!post.contains(SEED), "the seed is in the post");
}

/// `pbem show` in ASCII: the board, then the legend and the report.
fn post_free_board(table: &Table) -> String {
    let output = table
        .pbem()
        .arg("show")
        .arg(table.file())
        .output()
        .expect("pbem runs");
    assert!(output.status.success());
    String::from_utf8(output.stdout).expect("UTF-8")
}

#[test]
fn posts_mid_game_and_at_the_end() {
    let table = Table::new();
    table.start("right-of-way", &["Ann <ann@example.org>", "Bob"], SEED);
    play(&table, MID_GAME);
    let bbcode = post(&table, "bbcode", &["--legend"]);
    let markdown = post(&table, "markdown", &[]);
    check_layout(&bbcode, ForumMarkup::Bbcode, &table);
    check_layout(&markdown, ForumMarkup::Markdown, &table);
    assert!(!bbcode.contains("ann@example.org") && !markdown.contains("ann@example.org"));
    // The legend: asked for in BBCode (a block of its own, after the board); folded
    // in Markdown, and opened by --legend.
    let (_, _, after) = split_code(&bbcode, "[code]\n", "\n[/code]");
    assert!(after.contains("Legend:\n[code]\nCells:"), "{after}");
    assert!(!post(&table, "bbcode", &[]).contains("Cells:"));
    assert!(markdown.contains("<details><summary>Legend</summary>"));
    assert!(post(&table, "markdown", &["--legend"]).contains("<details open>"));
    insta::assert_snapshot!("bbcode_mid_game", bbcode);
    insta::assert_snapshot!("markdown_mid_game", markdown);

    play(&table, 500);
    assert_eq!(table.view()["over"], true, "the game ends");
    let bbcode = post(&table, "bbcode", &[]);
    let markdown = post(&table, "markdown", &[]);
    check_layout(&bbcode, ForumMarkup::Bbcode, &table);
    check_layout(&markdown, ForumMarkup::Markdown, &table);
    for text in [&bbcode, &markdown] {
        assert!(text.contains("Final scores:"), "{text}");
    }
    insta::assert_snapshot!("bbcode_game_over", bbcode);
    insta::assert_snapshot!("markdown_game_over", markdown);
}

#[test]
fn legend_is_refused_outside_forum_posts() {
    let table = Table::new();
    table.new_game(SEED);
    let output = table
        .pbem()
        .arg("show")
        .arg(table.file())
        .arg("--legend")
        .output()
        .expect("pbem runs");
    assert!(!output.status.success());
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("--format bbcode or markdown"), "{err}");
}

/// The grid of the board: the lines between the two column rulers.
fn grid(board: &str) -> Vec<&str> {
    let lines: Vec<&str> = board.lines().collect();
    let rulers: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].trim_start().starts_with("1  2  3"))
        .collect();
    assert!(rulers.len() >= 2, "two column rulers:\n{board}");
    lines[rulers[0] + 1..rulers[rulers.len() - 1]].to_vec()
}

/// Every word of the board that reads as a cell name (row letter A to I, then a
/// column number, neither joined to a letter or digit).
fn cell_names(line: &str) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    let mut names = Vec::new();
    for i in 0..chars.len() {
        let before = i.checked_sub(1).map(|j| chars[j]);
        if !('A'..='I').contains(&chars[i]) || before.is_some_and(|c| c.is_alphanumeric()) {
            continue;
        }
        let digits = chars[i + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let after = chars.get(i + 1 + digits);
        if digits > 0 && !after.is_some_and(|c| c.is_alphanumeric()) {
            names.push(chars[i..=i + digits].iter().collect());
        }
    }
    names
}

/// The issue's case: a right-of-way stack marked `#A1` beside cell A11 reads as a
/// cell. Every mark that reads as a cell name must be the label of a cell without a
/// highway, where labels are printed, and stacks are drawn as `[2B]`.
#[test]
fn board_marks_never_read_as_cell_names() {
    let table = Table::new();
    table.start("right-of-way", &["Ann", "Bob"], SEED);
    // Turn by turn until a purchase has put a stack on the board.
    let has_stack = |view: &Value| {
        view["board"]
            .as_array()
            .expect("cells")
            .iter()
            .any(|c| c["right_of_way"].as_array().is_some_and(|s| !s.is_empty()))
    };
    let mut view = table.view();
    for _ in 0..60 {
        if has_stack(&view) {
            break;
        }
        play(&table, 1);
        view = table.view();
    }
    let cells = view["board"].as_array().expect("cells");
    let stacks: Vec<&Value> = cells
        .iter()
        .filter(|c| c["right_of_way"].as_array().is_some_and(|s| !s.is_empty()))
        .collect();
    assert!(!stacks.is_empty(), "a right-of-way stack mid-game");
    let post = post(&table, "bbcode", &[]);
    let (_, board, _) = split_code(&post, "[code]\n", "\n[/code]");
    for stack in stacks {
        let height = stack["right_of_way"].as_array().map_or(0, Vec::len);
        let marked = grid(board)
            .iter()
            .any(|line| line.contains(&format!("[{height}")));
        assert!(
            marked,
            "a [{height}.] mark for {}:\n{board}",
            stack["label"]
        );
    }
    let mut labels = 0;
    for line in grid(board) {
        for name in cell_names(line) {
            let cell = cells
                .iter()
                .find(|c| c["label"] == name.as_str())
                .unwrap_or_else(|| panic!("{name:?} in {line:?} is no cell"));
            assert!(
                cell["highway"].is_null(),
                "{name} reads as a cell name where a highway is:\n{board}"
            );
            labels += 1;
        }
    }
    assert!(labels > 0, "free cells are labelled");
    assert!(!board.contains('#'), "{board}");
}

#[test]
fn names_that_could_close_a_code_block_are_refused_at_new() {
    for name in ["Ann[/code]", "Bo`b", "```", "[b]Cy", "Dee]"] {
        let table = Table::new();
        table.test_key();
        let output = table
            .pbem()
            .args(["new", "right-of-way", "--player", name, "--player", "Bob"])
            .args(["--seed", SEED, "--out"])
            .arg(table.file())
            .output()
            .expect("pbem runs");
        assert!(!output.status.success(), "{name:?} was accepted");
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(
            err.contains("not a usable player name") && err.contains("use letters, digits"),
            "{name:?}: {err}"
        );
        assert!(!table.file().exists(), "{name:?}: a game file was written");
    }
}

#[test]
fn markup_in_names_is_escaped_outside_the_code_block() {
    let table = Table::new();
    table.start("right-of-way", &["*Sue*", "_Tom_"], SEED);
    play(&table, 2);
    let markdown = post(&table, "markdown", &[]);
    let (status, board, _) = split_code(&markdown, "```text\n", "\n```");
    assert!(
        status.contains(r"\*Sue\* ") && status.contains(r"\_Tom\_ "),
        "{status}"
    );
    // Inside the code block nothing is markup: the names stay as they are.
    assert!(
        board.contains("*Sue*") && !board.contains(r"\*Sue") && !board.contains(r"\_Tom"),
        "{board}"
    );
    let bbcode = post(&table, "bbcode", &[]);
    assert!(
        bbcode.contains("*Sue* ") && bbcode.contains("_Tom_ "),
        "{bbcode}"
    );
}

#[test]
fn escapes_keep_text_literal() {
    let md = ForumMarkup::Markdown;
    assert_eq!(md.escape("*Sue* _Tom_"), r"\*Sue\* \_Tom\_");
    assert_eq!(md.escape("a `b` [c](d) <e> #f g|h ~i~ &amp;"), {
        r"a \`b\` \[c\](d) \<e\> \#f g\|h \~i\~ \&amp;"
    });
    // Words that would start a list, a heading rule or a numbered item when a wrapped
    // line begins with them.
    assert_eq!(
        md.escape("net - 1. 2) -1 == +"),
        r"net \- 1\. 2\) -1 \=\= \+"
    );
    assert_eq!(md.escape(r"back\slash"), r"back\\slash");
    let bb = ForumMarkup::Bbcode;
    assert_eq!(bb.escape("[b]x[/b]"), "[[b][/b]b]x[[b][/b]/b]");
    assert_eq!(bb.escape("[/code] [*]"), "[[b][/b]/code] [[b][/b]*]");
    // Brackets that cannot open a tag stay as they are.
    assert_eq!(bb.escape("[2B] a[] [ ]"), "[2B] a[] [ ]");
}

// ---------------------------------------------------------------------------------
// In a browser.

fn render_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/forum_render.py")
}

/// Why the browser test cannot run here, if it cannot.
fn browser_missing() -> Option<String> {
    if !Path::new(CHROMIUM).exists() {
        return Some(format!(
            "no {CHROMIUM} (Debian's chromium package: apt-get install chromium)"
        ));
    }
    let python = Command::new("python3")
        .args(["-c", "import markdown_it"])
        .stderr(Stdio::null())
        .status();
    if !python.is_ok_and(|s| s.success()) {
        return Some("no markdown-it-py (python3 -m pip install markdown-it-py)".into());
    }
    None
}

fn browser_required() -> bool {
    std::env::var("PBEM_REQUIRE_BROWSER").is_ok_and(|v| v == "1")
}

/// Runs headless Chromium on a page with a fresh profile; its standard output.
fn chromium(page: &Path, dir: &Path, extra: &[String]) -> String {
    String::from_utf8_lossy(&support::chromium(page, dir, extra).stdout).into_owned()
}

/// Checks asked of a rendered post.
#[derive(Default)]
struct Checks<'a> {
    visible: Vec<&'a str>,
    hidden: Vec<&'a str>,
    literal: Vec<&'a str>,
}

/// Renders `post` as its forum would into an HTML page, loads it in Chromium, and
/// returns the page's verdict; a screenshot of the first screen is kept at
/// `screenshot`.
fn in_browser(
    post: &str,
    markup: ForumMarkup,
    checks: &Checks<'_>,
    dir: &Path,
    screenshot: &Path,
) -> Value {
    let name = match markup {
        ForumMarkup::Bbcode => "bbcode",
        ForumMarkup::Markdown => "markdown",
    };
    let source = dir.join(format!("{name}.post"));
    std::fs::write(&source, post).expect("write the post");
    let page = dir.join(format!("{name}.html"));
    let mut command = Command::new("python3");
    command
        .arg(render_script())
        .args(["page", "--markup", name])
        .arg(&source)
        .arg(&page);
    for (flag, list) in [
        ("--visible", &checks.visible),
        ("--hidden", &checks.hidden),
        ("--literal", &checks.literal),
    ] {
        for text in list {
            command.args([flag, text]);
        }
    }
    let rendered = command.output().expect("python3 runs");
    assert!(
        rendered.status.success(),
        "{}",
        String::from_utf8_lossy(&rendered.stderr)
    );
    let dom = chromium(&page, dir, &["--dump-dom".to_string()]);
    let start = dom.find("id=\"verdict\"").expect("the verdict element");
    let start = start + dom[start..].find('>').expect("its tag closes") + 1;
    let end = start + dom[start..].find("</pre>").expect("the verdict ends");
    let verdict: Value = serde_json::from_str(&dom[start..end])
        .unwrap_or_else(|e| panic!("the page's verdict: {e}: {}", &dom[start..end]));

    if let Some(parent) = screenshot.parent() {
        std::fs::create_dir_all(parent).expect("the screenshot folder");
    }
    let _ = std::fs::remove_file(screenshot);
    chromium(
        &page,
        dir,
        &[format!("--screenshot={}", screenshot.display())],
    );
    let stats = Command::new("python3")
        .arg(render_script())
        .arg("png")
        .arg(screenshot)
        .output()
        .expect("python3 runs");
    let stats: Value = serde_json::from_slice(&stats.stdout).expect("PNG statistics");
    assert_eq!(stats["png"], true, "{}: {stats}", screenshot.display());
    assert_eq!(
        (stats["width"].as_u64(), stats["height"].as_u64()),
        (Some(800), Some(600)),
        "{stats}"
    );
    assert_eq!(stats["decoded"], true, "{stats}");
    // A page of text and code boxes, not a blank or an error page.
    assert!(stats["colours"].as_u64() > Some(20), "{stats}");
    assert!(stats["not_background"].as_f64() > Some(0.01), "{stats}");
    verdict
}

fn measured<'a>(verdict: &'a Value, list: &str, text: &str) -> &'a Value {
    verdict[list]
        .as_array()
        .and_then(|items| items.iter().find(|m| m["text"] == text))
        .unwrap_or_else(|| panic!("no measure of {text:?} in {verdict}"))
}

/// The posts as phpBB (BBCode, its 200-pixel code box) and Discourse (CommonMark,
/// code blocks at most 500 pixels high) show them, in headless Chromium at 800x600:
/// the turn, who moves, the last move and the scores on the first screen and outside
/// the code box; the Markdown legend folded; names with `*` and `_` shown as typed.
/// A control post with the status inside the code block, as posts were before,
/// fails the same measure.
#[test]
fn posts_show_the_state_of_play_on_the_first_screen_of_a_browser() {
    if let Some(reason) = browser_missing() {
        assert!(
            !browser_required(),
            "PBEM_REQUIRE_BROWSER=1, but the forum posts cannot be tested in a browser: {reason}"
        );
        let _ = writeln!(
            std::io::stderr(),
            "skipped: forum posts in a browser (tests/it/forum.rs): {reason}"
        );
        return;
    }
    let table = Table::new();
    table.start("right-of-way", &["*Sue*", "_Tom_"], SEED);
    play(&table, MID_GAME);
    let view = table.view();
    let turn = view["turn"].as_u64().expect("a turn");
    let mover = to_move(&view);
    let scores = view["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| format!("{} {}", p["name"].as_str().expect("a name"), p["score"]))
        .collect::<Vec<_>>()
        .join(", ");
    let title = format!("turn {turn}");
    let to_move_line = format!("To move: {mover}");
    let scores_line = format!("Scores: {scores}");
    let last_move = format!("Last move, turn {turn}, ");
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("forum");

    for markup in [ForumMarkup::Bbcode, ForumMarkup::Markdown] {
        let (format, name) = match markup {
            ForumMarkup::Bbcode => ("bbcode", "phpBB"),
            ForumMarkup::Markdown => ("markdown", "Discourse"),
        };
        let text = post(&table, format, &[]);
        let checks = Checks {
            visible: vec![&title, &to_move_line, &scores_line, &last_move],
            hidden: vec!["Cells: row letter"],
            literal: vec!["*Sue*", "_Tom_"],
        };
        let dir = tempfile::tempdir().expect("a folder for the pages");
        let shot = shots.join(format!("{format}.png"));
        let verdict = in_browser(&text, markup, &checks, dir.path(), &shot);
        for line in &checks.visible {
            let m = measured(&verdict, "visible", line);
            assert_eq!(m["found"], true, "{name}: {line:?} is not in the post: {m}");
            assert_eq!(
                m["in_code"], false,
                "{name}: {line:?} is in a code box: {m}"
            );
            assert_eq!(
                m["visible"],
                true,
                "{name}: {line:?} is not on the first screen: {m} (screenshot {})",
                shot.display()
            );
        }
        for m in verdict["literal"].as_array().expect("literal checks") {
            assert_eq!(
                m["found"], true,
                "{name}: a name is not shown as typed: {m}"
            );
        }
        assert_eq!(verdict["emphasis"], 0, "{name}: a name made emphasis");
        // The board is taller than the forum lets a code box be: the reason the
        // status must not be in it.
        let boxes = verdict["code_boxes"].as_array().expect("code boxes");
        assert_eq!(boxes[0]["clipped"], true, "{name}: {verdict}");
        if markup == ForumMarkup::Markdown {
            let legend = measured(&verdict, "hidden", "Cells: row letter");
            assert_eq!(legend["found"], true, "{legend}");
            assert_eq!(
                legend["drawn"], false,
                "the folded legend is drawn: {legend}"
            );
        }

        // The control: the same status inside the code block, after the board.
        let (open, close) = match markup {
            ForumMarkup::Bbcode => ("[code]\n", "\n[/code]"),
            ForumMarkup::Markdown => ("```text\n", "\n```"),
        };
        let (_, board, _) = split_code(&text, open, close);
        let control = format!("{open}{board}\n{scores_line}{close}\n");
        let checks = Checks {
            visible: vec![&scores_line],
            ..Checks::default()
        };
        let shot = shots.join(format!("{format}-control.png"));
        let verdict = in_browser(&control, markup, &checks, dir.path(), &shot);
        let m = measured(&verdict, "visible", &scores_line);
        assert_eq!(
            (m["found"].clone(), m["visible"].clone()),
            (Value::Bool(true), Value::Bool(false)),
            "{name}: the measure must catch a status hidden in the code box: {m}"
        );
    }
}

/// Escaped text, as the renderers read it: BBCode tags and Markdown marks shown as
/// typed, none of them markup.
#[test]
fn escaped_markup_renders_as_typed_in_a_browser() {
    if let Some(reason) = browser_missing() {
        assert!(
            !browser_required(),
            "PBEM_REQUIRE_BROWSER=1, but escaping cannot be tested in a browser: {reason}"
        );
        let _ = writeln!(
            std::io::stderr(),
            "skipped: escaped markup in a browser (tests/it/forum.rs): {reason}"
        );
        return;
    }
    let samples = [
        "[b]bold[/b] [i]it[/i] [/code] [url=x]u[/url]",
        "*em* _em_ **strong** `code` [link](x) <b>html</b> a|b ~~s~~ &amp;",
        "- 1. # a list, a number, a heading",
    ];
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("forum");
    for markup in [ForumMarkup::Bbcode, ForumMarkup::Markdown] {
        let text: String = samples
            .iter()
            .map(|s| format!("{}\n\n", markup.escape(s)))
            .collect();
        let checks = Checks {
            literal: samples.to_vec(),
            ..Checks::default()
        };
        let dir = tempfile::tempdir().expect("a folder for the pages");
        let shot = shots.join(format!("escaped-{markup:?}.png").to_lowercase());
        let verdict = in_browser(&text, markup, &checks, dir.path(), &shot);
        for m in verdict["literal"].as_array().expect("literal checks") {
            assert_eq!(m["found"], true, "{markup:?}: not shown as typed: {m}");
        }
        assert_eq!(verdict["emphasis"], 0, "{markup:?}: {verdict}");
        assert_eq!(verdict["marked"], 0, "{markup:?}: {verdict}");
        assert_eq!(verdict["code_boxes"], Value::Array(vec![]), "{verdict}");
    }
}
