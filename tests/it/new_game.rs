//! A game added the way docs/ARCHITECTURE.md ("Adding a game") describes, with no rules
//! data file and one option, played and audited through the engine's generic API alone.

use pbem::engine::driver::{Driver, GameDriver};
use pbem::engine::fairness::Seed;
use pbem::engine::keyring::Keyring;
use pbem::engine::roster::parse_player;
use pbem::engine::session::{Game, NewGame};
use pbem::engine::{
    BoardContext, Chance, GameView, LegalMove, Options, RuleError, Rules, Seat, Viewer, Visibility,
};
use serde::{Deserialize, Serialize};

/// High card: each player in turn draws one card from a deck of `cards` (the option);
/// the highest card wins.
struct HighCard {
    cards: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Hands {
    /// Each seat's card, once drawn (0-based: card 0 is the lowest).
    drawn: Vec<Option<u32>>,
}

impl Hands {
    fn next(&self) -> Option<Seat> {
        self.drawn.iter().position(Option::is_none)
    }
}

impl Rules for HighCard {
    type State = Hands;
    type Move = ();

    const NAME: &'static str = "high-card";
    const OPTIONS: &'static [(&'static str, &'static str)] = &[("cards", "10")];

    fn from_options(options: &Options) -> Result<Self, RuleError> {
        let text = options.get("cards").map_or("", String::as_str);
        match text.parse::<u32>() {
            Ok(cards @ 2..=52) => Ok(HighCard { cards }),
            _ => Err(RuleError::new(
                format!("cards `{text}` is not a deck size"),
                "a number from 2 to 52, e.g. `--option cards=10`",
            )),
        }
    }

    fn options(&self) -> Options {
        Options::from([("cards".to_string(), self.cards.to_string())])
    }

    fn setup(&self, players: &[String], _chance: &mut dyn Chance) -> Result<Hands, RuleError> {
        if players.len() != 2 {
            return Err(RuleError::new(
                "high card is for two players",
                "two --player",
            ));
        }
        Ok(Hands {
            drawn: vec![None; 2],
        })
    }

    fn to_move(&self, state: &Hands) -> Vec<Seat> {
        state.next().into_iter().collect()
    }

    fn is_over(&self, state: &Hands) -> bool {
        state.next().is_none()
    }

    fn parse_move(&self, _state: &Hands, _seat: Seat, text: &str) -> Result<(), RuleError> {
        if text.trim().eq_ignore_ascii_case("draw") {
            Ok(())
        } else {
            Err(RuleError::new(
                format!("`{}` is not a move", text.trim()),
                "draw",
            ))
        }
    }

    fn canonical_text(&self, _mv: &()) -> String {
        "draw".to_string()
    }

    fn apply(
        &self,
        state: &Hands,
        seat: Seat,
        _mv: &(),
        chance: &mut dyn Chance,
    ) -> Result<Hands, RuleError> {
        if state.next() != Some(seat) {
            return Err(RuleError::new("it is not your turn", "wait"));
        }
        let mut next = state.clone();
        next.drawn[seat] = Some(chance.draw(self.cards, Visibility::Public));
        Ok(next)
    }

    fn legal_moves(&self, state: &Hands, seat: Seat) -> Vec<LegalMove> {
        if state.next() != Some(seat) {
            return Vec::new();
        }
        vec![LegalMove {
            text: "draw".to_string(),
            kind: "draw".to_string(),
            details: serde_json::Map::new(),
        }]
    }

    fn scores(&self, state: &Hands) -> Vec<i64> {
        state
            .drawn
            .iter()
            .map(|card| card.map_or(0, |card| i64::from(card) + 1))
            .collect()
    }

    fn winners(&self, state: &Hands) -> Vec<Seat> {
        if !self.is_over(state) {
            return Vec::new();
        }
        let scores = self.scores(state);
        let best = scores.iter().copied().max().unwrap_or(0);
        (0..scores.len()).filter(|&s| scores[s] == best).collect()
    }

    fn view(&self, _state: &Hands, _viewer: Viewer, _names: &[String]) -> GameView {
        GameView::default()
    }

    fn board(&self, state: &Hands, context: &BoardContext<'_>) -> String {
        context
            .names
            .iter()
            .zip(&state.drawn)
            .map(|(name, card)| match card {
                Some(card) => format!("{name}: card {}\n", card + 1),
                None => format!("{name}: no card yet\n"),
            })
            .collect()
    }
}

fn request(options: &[(&str, &str)]) -> NewGame {
    NewGame {
        players: vec![parse_player("Ann"), parse_player("Bob <bob@example.org>")],
        options: options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        seed: Some(Seed([9; 32])),
        ..NewGame::default()
    }
}

#[test]
fn a_game_without_rules_data_is_created_played_and_audited() {
    let dir = tempfile::tempdir().expect("dir");
    let keyring = Keyring::at(dir.path());
    let mut game = Game::<HighCard>::create(request(&[("cards", " 6 ")]), &keyring)
        .expect("a game without rules data starts");
    assert_eq!(game.file.genesis.rules_data, "");
    assert_eq!(game.file.genesis.options["cards"], "6");
    assert!(
        game.apply(&keyring, "Bob", "draw").is_err(),
        "Ann moves first"
    );
    let first = game.apply(&keyring, "Ann", "draw").expect("Ann draws");
    assert!(!first.over);
    let last = game.apply(&keyring, "Bob", " DRAW ").expect("Bob draws");
    assert!(last.over);
    assert_eq!(last.understood, "draw");
    assert!(last
        .state
        .drawn
        .iter()
        .all(|card| card.is_some_and(|c| c < 6)));

    let report = game.audit(Some(&keyring));
    assert!(
        report.passed() && report.draws_derived,
        "{}",
        report.render()
    );
    let outsider = game.audit(None);
    assert!(outsider.passed(), "{}", outsider.render());

    // The same game through the game-erased driver the command line uses: the file's
    // bytes read back, and the audit of the bytes passes.
    let driver = Driver::<HighCard>::new();
    let bytes = game.file.to_bytes().expect("bytes");
    let text = pbem::engine::file::FileText::parse(&bytes).expect("a game file");
    let opened = driver
        .open(text, &bytes, Some(&keyring), false)
        .expect("opens");
    let view = opened.view(None, None).expect("view");
    assert_eq!(view["over"], true);
    let report = opened.audit();
    assert!(report.passed(), "{}", report.render());
}

#[test]
fn options_are_checked_against_those_the_game_declares() {
    let dir = tempfile::tempdir().expect("dir");
    let keyring = Keyring::at(dir.path());
    let defaults = Game::<HighCard>::create(request(&[]), &keyring).expect("defaults");
    assert_eq!(defaults.file.genesis.options["cards"], "10");

    let unknown = Game::<HighCard>::create(request(&[("jokers", "2")]), &keyring)
        .err()
        .expect("an unknown option is refused")
        .to_string();
    assert!(
        unknown.contains("high-card has no option `jokers`"),
        "{unknown}"
    );
    assert!(unknown.contains("cards (default 10)"), "{unknown}");

    let bad = Game::<HighCard>::create(request(&[("cards", "many")]), &keyring)
        .err()
        .expect("a bad value is refused")
        .to_string();
    assert!(bad.contains("cards `many` is not a deck size"), "{bad}");

    assert!(
        HighCard::from_data("[tile]\n", &Options::new()).is_err(),
        "a game without rules data refuses data"
    );
}
