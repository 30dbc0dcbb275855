//! The desert kingdom's board picture: all the ASCII board tells, nothing a player
//! may not see, and as a PNG.

use super::*;

/// The ASCII board `pbem show --as VIEWER --turn TURN` prints, up to its legend.
fn ascii_board(table: &crate::support::Table, viewer: &str, turn: usize) -> String {
    let output = table
        .pbem()
        .arg("show")
        .arg(table.file())
        .args(["--as", viewer, "--turn", &turn.to_string()])
        .output()
        .expect("runs");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    text.split("\n\n").next().unwrap_or_default().to_string()
}

/// All the texts of a picture, their white space squeezed (a wrapped line still
/// matches).
fn svg_words(svg: &str) -> String {
    let texts: Vec<String> = picture_texts_sized(svg)
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    squeezed(&texts.join(" "))
}

/// The picture tells what the ASCII board tells: every line under the board's grid
/// is in it, word for word, and every tile's letter and owner's number.
#[test]
fn the_board_picture_tells_all_the_ascii_board_tells() {
    let (table, _) = six_player_game();
    for (viewer, turn) in [("Ann", 33), ("Dee", 6), ("referee", 6), ("Bob", 59)] {
        let board = ascii_board(&table, viewer, turn);
        let picture = svg(&table, viewer, turn);
        let texts: Vec<String> = picture_texts_sized(&picture)
            .into_iter()
            .map(|(_, t)| t)
            .collect();
        let lines: Vec<&str> = board.lines().collect();
        assert_eq!(lines[0], lines[9], "{board}");
        for line in &lines[10..] {
            let escaped = pbem::grid::svg::escape(line.trim_end());
            assert!(
                texts.contains(&escaped),
                "{viewer} {turn}: {line:?} in {texts:?}"
            );
        }
        // The grid's cells: " D1=", " [?]", " *G2 *" and so on, six characters each.
        let cells: Vec<String> = lines[1..9]
            .iter()
            .flat_map(|row| {
                let row = row.replace('*', " ");
                row.as_bytes()[3..row.len() - 3]
                    .chunks(6)
                    .map(|c| String::from_utf8_lossy(c).trim().to_string())
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(cells.len(), 64, "{board}");
        // Each tile's letter as often as the grid has it (face up large, face down a
        // little smaller), and each owner's number on as many tiles.
        let letters = texts_sized(&picture, "22");
        let backs = texts_sized(&picture, "20");
        let owners = texts_sized(&picture, "10.63");
        for letter in ["O", "C", "M", "G", "D", "^", ">"] {
            let in_board = cells.iter().filter(|c| c.starts_with(letter)).count();
            let in_picture = letters.iter().filter(|t| *t == letter).count();
            assert_eq!(in_picture, in_board, "{viewer} {turn}: {letter}\n{board}");
        }
        for back in ["[?]", "[C]", "[T]", "[B]", "[G]", "[O]"] {
            let in_board = cells.iter().filter(|c| *c == back).count();
            let shown = if back == "[?]" { "?" } else { back };
            let in_picture = backs.iter().filter(|t| *t == shown).count();
            assert_eq!(in_picture, in_board, "{viewer} {turn}: {back}\n{board}");
        }
        for seat in ["1", "2", "3", "4", "5", "6"] {
            let in_board = cells
                .iter()
                .filter(|c| !c.starts_with('[') && c.get(1..2) == Some(seat))
                .count();
            let in_picture = owners.iter().filter(|t| *t == seat).count();
            assert_eq!(
                in_picture, in_board,
                "{viewer} {turn}: owner {seat}\n{board}"
            );
        }
        let roads = cells.iter().filter(|c| c.ends_with('=')).count();
        let in_picture = texts.iter().filter(|t| *t == "road").count();
        assert_eq!(in_picture, roads, "{viewer} {turn}\n{board}");
        let ruined = cells.iter().filter(|c| *c == "x").count();
        let destroyed = texts.iter().filter(|t| *t == "destroyed").count();
        assert_eq!(destroyed, ruined, "{viewer} {turn}\n{board}");
    }
}

/// A player's picture keeps what the player may not see: the kinds of the face-down
/// tiles (which the referee's picture shows) and the tiles another player drew
/// (which the referee's and the chooser's pictures list).
#[test]
fn a_players_picture_shows_nothing_they_may_not_see() {
    let (table, recorded) = six_player_game();
    // Move 6 is Dee's `take`: after 6 records Dee chooses from the tiles drawn.
    let turn = 6;
    assert_eq!(recorded.moves[turn].0, "Dee");
    assert!(recorded.moves[turn].1.starts_with("take "));
    let referee = svg(&table, "referee", turn);
    let view: Value = serde_json::from_slice(
        &table
            .pbem()
            .arg("show")
            .arg(table.file())
            .args(["--format", "json", "--as", "referee", "--turn", "6"])
            .output()
            .expect("runs")
            .stdout,
    )
    .expect("json");
    let drawn: Vec<&str> = view["drawn"]
        .as_array()
        .expect("the referee sees the drawn tiles")
        .iter()
        .map(|k| k.as_str().expect("a kind"))
        .collect();
    assert!(!drawn.is_empty());
    let secret_list = format!("drawn: {}.", drawn.join(", "));
    let words = |picture: &str| svg_words(picture);
    // The face-down tiles' kinds, as the referee's picture shows them.
    let face_down: Vec<String> = view["squares"]
        .as_array()
        .expect("squares")
        .iter()
        .filter(|s| s["face_down"] == true)
        .map(|s| {
            let kind = Kind::parse(s["terrain"].as_str().expect("a kind")).expect("a kind");
            format!(">[{}]</text>", kind.letter())
        })
        .collect();
    assert!(!face_down.is_empty(), "a tile lies face down by turn 6");
    for mark in &face_down {
        assert!(referee.contains(mark), "{mark}");
    }
    assert!(words(&referee).contains(&secret_list), "{secret_list}");
    let chooser = svg(&table, "Dee", turn);
    assert!(words(&chooser).contains(&secret_list));
    for viewer in ["Ann", "Bob", "Cid", "Eve", "Fay", "Dee"] {
        let picture = svg(&table, viewer, turn);
        for mark in &face_down {
            assert!(!picture.contains(mark), "{viewer} sees {mark}");
        }
        assert_eq!(
            picture.matches(">face down</text>").count(),
            face_down.len(),
            "{viewer}"
        );
        if viewer != "Dee" {
            let words = words(&picture);
            assert!(!words.contains(&secret_list), "{viewer} sees {secret_list}");
            assert!(words.contains(" drawn."), "{viewer}: {words}");
        }
    }
    // At the end every face-down tile shows its kind to everyone, as on the board.
    let end = svg(&table, "Ann", recorded.moves.len());
    assert!(!end.contains(">face down</text>"), "{end}");
    assert!(
        texts_sized(&end, "20").iter().any(|t| t.starts_with('[')),
        "{end}"
    );
}

/// `--format png` draws the picture: a PNG of the SVG's size times `PNG_SCALE`, for a player's
/// view and an earlier turn.
#[test]
fn the_board_picture_as_png() {
    let (table, _) = six_player_game();
    for (viewer, turn) in [("Bob", 20), ("Ann", 59)] {
        let svg = svg(&table, viewer, turn);
        let png = picture(&table, "png", viewer, turn);
        let (width, height) = png_size(&png);
        assert_eq!(f64::from(width), (picture_size(&svg).0 * PNG_SCALE).round());
        assert_eq!(
            f64::from(height),
            (picture_size(&svg).1 * PNG_SCALE).round()
        );
        assert!(height > width, "the panel under the board");
    }
}
