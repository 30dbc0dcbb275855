//! The triangle auction's words: a card named only to its owner until it opens, the
//! move list grouped by phase, and the example move.

use super::*;

/// In every recorded game, a card choice's report names the card to its owner only,
/// and a score that changes is told in the same turn's report.
#[test]
fn a_card_is_named_only_to_its_owner_until_it_opens() {
    for number in 1..=3 {
        let recorded = recorded(number);
        let game = InProcess::new(&recorded, recorded.moves.len());
        let reports = game.reports();
        let rules = &game.game.rules;
        let mut cards = 0;
        for (index, (player, text)) in recorded.moves.iter().enumerate() {
            let lines = &reports[index];
            let before = game.state(index as u64);
            let after = game.state(index as u64 + 1);
            let changed = rules.scores(&before) != rules.scores(&after);
            assert_eq!(
                changed,
                lines.iter().any(|l| l.text.starts_with("Scores: ")),
                "turn {}: {lines:?}",
                index + 1
            );
            if !text.starts_with("card") {
                continue;
            }
            cards += 1;
            let owner = recorded
                .players
                .iter()
                .position(|p| p == player)
                .expect("a player");
            for (seat, _) in recorded.players.iter().enumerate() {
                let seen: Vec<&ReportLine> = lines
                    .iter()
                    .filter(|l| l.seen_by(Viewer::Player(seat)))
                    .collect();
                assert!(seen
                    .iter()
                    .any(|l| l.text.starts_with(&format!("{player} has chosen a card"))));
                assert_eq!(
                    seen.iter().any(|l| l.text.contains(&format!(": {text} "))),
                    seat == owner,
                    "turn {}, read by seat {seat}: {seen:?}",
                    index + 1
                );
            }
            assert!(lines
                .iter()
                .filter(|l| l.seen_by(Viewer::Public))
                .all(|l| !l.text.contains(text.as_str())));
        }
        assert_eq!(cards, 24 * recorded.players.len() / 3, "8 rounds of cards");
    }
}

/// The readable moves of each phase: grouped, with costs, narrowed by a space, a
/// tile or a card, a helpful line when the filter names nothing of the game; every
/// move a listing quotes is one `apply` takes.
#[test]
fn readable_moves_are_grouped_by_phase_and_narrowed_by_filters() {
    let recorded = recorded(1);
    let game = InProcess::new(&recorded, 53);
    let rules = &game.game.rules;
    let text = |turn: u64, seat: usize, at: Option<&str>, tile: Option<&str>| {
        let filter = MoveFilter {
            at: at.map(str::to_string),
            tile: tile.map(str::to_string),
        };
        let listing = rules.moves_text(&game.state(turn), seat, &filter, &recorded.players);
        for line in listing.lines() {
            assert!(line.len() <= 78, "too wide: {line:?}");
        }
        listing
    };
    // Every move text the listing quotes applies as it stands.
    let applies = |turn: u64, seat: usize, listing: &str| {
        let state = game.state(turn);
        let quoted = listing
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .chain(listing.lines().filter_map(|l| {
                let l = l.trim_start();
                l.starts_with("place ")
                    .then(|| l.split("  ").next().unwrap_or_default().to_string())
            }));
        let mut count = 0;
        for mv in quoted.filter(|q| !q.starts_with("moves")) {
            play(rules, &state, seat, &mv).unwrap_or_else(|e| panic!("`{mv}`: {e}"));
            count += 1;
        }
        count
    };

    // Cards (turn 0, Ann): every card, where it takes her, what is left to bid.
    let cards = text(0, 0, None, None);
    assert!(cards.starts_with("Choose a card, face down"), "{cards}");
    assert!(
        cards.contains("  `card 0`  improvement 0 -> 0, 5 chits to bid\n"),
        "{cards}"
    );
    assert!(
        cards.contains("  `card 5`  improvement 0 -> 5, 0 chits to bid\n"),
        "{cards}"
    );
    assert_eq!(applies(0, 0, &cards), 6);
    let one = text(0, 0, None, Some("3"));
    assert_eq!(one.matches("`card ").count(), 1, "{one}");
    assert!(one.contains("`card 3`"), "{one}");
    let elsewhere = text(0, 0, Some("C5"), None);
    assert!(
        elsewhere.starts_with("Now every player chooses a card"),
        "{elsewhere}"
    );
    // Round 5, Ann on 5 of the track: card 2 reaches 7.
    let round_five = text(52, 0, Some("2"), None);
    assert!(
        round_five.contains("improvement 5 -> 7 (your 4th best colour scores)"),
        "{round_five}"
    );

    // Bidding (turn 44, Ann, card 0 not yet open): a row per tile, its holder, the
    // chits a claim takes and where the tile would fit her area.
    let bids = text(44, 0, None, None);
    assert!(bids.starts_with("You bid with 5 chits: your card 0 opens with this turn."));
    assert!(
        bids.contains("  Tile   On it     To claim  Fits your area\n"),
        "{bids}"
    );
    assert!(
        bids.contains("  A BG-  Bob: 1    2 chits   at 1 space\n"),
        "{bids}"
    );
    assert!(
        bids.contains("  F PB-  free      1 chit    nowhere now\n"),
        "{bids}"
    );
    assert!(bids.contains("passing is not allowed now"), "{bids}");
    assert_eq!(
        bids.lines()
            .filter(|l| l.starts_with("  ") && l.len() > 8)
            .count(),
        8
    );
    let tile_a = text(44, 0, Some("a"), None);
    assert!(
        tile_a.contains("    bids: `bid 2 on A` to `bid 5 on A`\n"),
        "{tile_a}"
    );
    assert!(tile_a.contains("    fits at: G12 r1\n"), "{tile_a}");
    assert!(!tile_a.contains("  B RYP"), "{tile_a}");
    assert_eq!(applies(44, 0, &tile_a), 2);
    // By colours, as shown or turned: BG- is tile A, so is G-B.
    assert_eq!(text(44, 0, None, Some("BG-")), tile_a);
    assert_eq!(text(44, 0, None, Some("g-b")), tile_a);
    let at_g10 = text(44, 0, Some("G10"), None);
    assert!(
        at_g10.contains("  B RYP  free      1 chit    at G10 r0\n"),
        "{at_g10}"
    );
    assert!(
        at_g10.contains("  A BG-  Bob: 1    2 chits   not at G10\n"),
        "{at_g10}"
    );
    let none = text(44, 0, None, Some("RRR"));
    assert!(
        none.contains("No tile of the offer has those colours."),
        "{none}"
    );
    let unknown = text(44, 0, Some("Z99"), None);
    assert!(
        unknown
            .starts_with("`Z99` is neither a space of your area, a tile of the offer nor a card."),
        "{unknown}"
    );

    // Placing (turn 48, Ann won A and B): each tile with the spaces it fits.
    let places = text(48, 0, None, None);
    assert!(
        places.starts_with("To place: A (BG-) and B (RYP).\n"),
        "{places}"
    );
    assert!(
        places.contains("\nA (BG-) fits at 1 space: G12 r1\n"),
        "{places}"
    );
    assert!(
        places.contains("\nB (RYP) fits at 2 spaces: G10 r0, I11 r1\n"),
        "{places}"
    );
    assert!(
        places.contains("    place A at G12 r1; place B at G10 r0\n"),
        "{places}"
    );
    let tile_b = text(48, 0, None, Some("B"));
    assert!(tile_b.contains("  place B at G10 r0    red top, yellow right, purple left\n"));
    assert!(tile_b.contains("  place B at I11 r1    purple left, red right, yellow bottom\n"));
    assert!(!tile_b.contains("place A"), "{tile_b}");
    assert_eq!(applies(48, 0, &tile_b), 2);
    let space = text(48, 0, Some("G10"), None);
    assert!(
        space.starts_with("G10 (points down: edges top, right, left):\n"),
        "{space}"
    );
    assert!(
        space.contains(
            "  A (BG-) does not fit there: its green road would meet a yellow road of G11\n"
        ),
        "{space}"
    );
    assert!(space.contains("  place B at G10 r0"), "{space}");
    let both = text(48, 0, Some("G10"), Some("A"));
    assert!(!both.contains("place B"), "{both}");
    let not_mine = text(48, 0, None, Some("C"));
    assert!(
        not_mine.starts_with("That is not a tile you won and still hold; yours to place:"),
        "{not_mine}"
    );
    // Not the reader's turn.
    assert!(text(44, 1, None, None).starts_with("It is not your turn"));
}

/// The example in notices and refusals is a move worth making: a card that reaches
/// the next step of the track, a claim on a tile that fits, every tile won placed
/// where it meets the most roads.
#[test]
fn the_example_move_is_the_rules_best_guess() {
    let recorded = recorded(1);
    let game = InProcess::new(&recorded, 60);
    let rules = &game.game.rules;
    // Round 5's cards: Ann on 5 reaches 7 with card 2; Bob on 7 needs 7 for 14.
    let cards = game.state(52);
    assert_eq!(cards.players[0].improvement, 5);
    assert_eq!(rules.example_move(&cards, 0).as_deref(), Some("card 2"));
    assert_eq!(cards.players[1].improvement, 7);
    assert_eq!(rules.example_move(&cards, 1).as_deref(), Some("card 1"));
    // The auction: tile F fits nowhere in Ann's area and costs 1 like others; the
    // example bids on a tile with three roads that fits.
    let auction = game.state(44);
    assert_eq!(
        rules.example_move(&auction, 0).as_deref(),
        Some("bid 1 on B")
    );
    // Placing: both tiles, the second where the first opened a space for it.
    let placing = game.state(48);
    let example = rules.example_move(&placing, 0).expect("an example");
    assert_eq!(example, "place A at G12 r1; place B at G10 r0");
    let after = play(rules, &placing, 0, &example).expect("the example applies");
    assert!(after.players[0].won.is_empty());
    // A refusal carries it.
    let error = play(rules, &placing, 0, "place Z").expect_err("not a move");
    assert!(
        error.ends_with(&format!("for example `{example}`")),
        "{error}"
    );
    // Not to move: no example.
    assert_eq!(rules.example_move(&auction, 1), None);
}
