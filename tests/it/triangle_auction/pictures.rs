//! The triangle auction's board picture: no card a player may not see, the PNG as
//! the SVG drawn, and final pictures that stay small.

use super::*;

/// A player's picture tells only what their text board tells: another player's card
/// chosen face down is in the referee's picture and its owner's, never in another
/// player's or the public one; and every text the player's picture sets is one their
/// text shows.
#[test]
fn a_players_picture_holds_no_card_they_may_not_see() {
    let recorded = recorded(1);
    let table = replay_revision_1(
        "triangle-auction",
        &recorded.players,
        &recorded.seed,
        &recorded.moves[..3],
    );
    // Turn 2: Bob chose card 5, face down.
    assert_eq!(recorded.moves[1], ("Bob".to_string(), "card 5".to_string()));
    let secret = "card 5 face down";
    for (viewer, sees) in [
        (Some("referee"), true),
        (Some("Bob"), true),
        (Some("Ann"), false),
        (Some("Cid"), false),
        (None, false),
    ] {
        let svg = svg_of(&table, viewer, Some(2));
        assert_eq!(svg.contains(secret), sees, "{viewer:?}");
        let text = text_of(&table, viewer, Some(2));
        assert_eq!(text.contains(secret), sees, "{viewer:?}");
        // Every text in the picture is in the text board, or names a road colour
        // (the legend's) or an offer tile nobody bid on.
        for shown in picture_texts(&svg) {
            let known = text.contains(&shown)
                || ["red", "yellow", "green", "blue", "purple", "no bid"].contains(&shown.as_str());
            assert!(known, "{viewer:?}: {shown:?} is not in\n{text}");
        }
    }
}

/// `pbem show --format png` draws the picture at its size times `PNG_SCALE`, for a player and at
/// an earlier turn.
#[test]
fn the_picture_as_png_is_the_svg_drawn() {
    let recorded = recorded(1);
    let table = replay_revision_1(
        "triangle-auction",
        &recorded.players,
        &recorded.seed,
        &recorded.moves[..53],
    );
    for (viewer, turn) in [(Some("Bob"), Some(49)), (Some("Cid"), None)] {
        let svg = svg_of(&table, viewer, turn);
        let png = picture(&table, "png", viewer, turn);
        let (width, height) = png_size(&png);
        let (w, h) = picture_size(&svg);
        assert_eq!(
            (f64::from(width), f64::from(height)),
            ((w * PNG_SCALE).round(), (h * PNG_SCALE).round()),
            "{viewer:?} {turn:?}"
        );
    }
    // --turn 49 and the latest turn are different pictures.
    assert_ne!(
        picture(&table, "png", Some("Bob"), Some(49)),
        picture(&table, "png", Some("Bob"), None)
    );
}

/// The final boards stay small: a recorded game's (a bounded area) and a random
/// five-player game's (open areas), for the referee.
#[test]
fn final_pictures_stay_small() {
    let recorded = recorded(1);
    let table = replay_revision_1(
        "triangle-auction",
        &recorded.players,
        &recorded.seed,
        &recorded.moves,
    );
    let svg = svg_of(&table, None, None);
    assert!(svg.len() < 100_000, "{} bytes", svg.len());
    let (rules, state) = random_game(5, 11, &[]);
    let names = names(5);
    let context = pbem::engine::BoardContext {
        viewer: Viewer::Referee,
        names: &names,
        turn: 400,
        last_move: None,
    };
    let svg = rules.board_svg(&state, &context);
    let placed: usize = state.players.iter().map(|p| p.area.len()).sum();
    assert!(placed > 40, "{placed} tiles");
    assert!(
        svg.len() < 150_000,
        "{} bytes for {placed} tiles",
        svg.len()
    );
    assert!(svg.ends_with("</svg>\n"));
}
