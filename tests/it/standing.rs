//! Every draw is a function of the seed, genesis and the standing moves alone
//! (docs/FAIRNESS.md, "The standing history"), tried everywhere: random complete games
//! of every seed game, played again in branches that take moves back and make them
//! again, apply each round's moves in another arrival order, split a player's placing
//! turn into several messages and spell moves otherwise, all at random points; every
//! branch goes on with the same moves and must draw exactly as the game it branched
//! from, to the end. Format 3, which keyed a round's draws on the hash of the record
//! before it, fails the same test.

use proptest::prelude::*;
use serde_json::Value;

use pbem::basics::digest::to_hex;
use pbem::engine::driver::OpenGame;
use pbem::engine::fairness::{hidden_commitment, Scope, Seed};
use pbem::engine::file::{UndoStep, Version};
use pbem::engine::keyring::Keyring;
use pbem::engine::roster::parse_player;
use pbem::engine::session::NewGame;
use pbem::engine::DrawStream;

/// A draw as the file's whole future sees it: (of, pick), a hidden one opened.
type Drawn = (u64, u64);

/// A move as the game it branched from made it.
#[derive(Debug, Clone)]
struct Made {
    player: String,
    text: String,
    /// The round it belongs to (its `round` marker); `None`: made alone.
    round: Option<u64>,
}

/// A game in play through the engine's driver, as the referee plays it.
struct Play {
    game: Box<dyn OpenGame>,
    seed: Seed,
    keyring: Keyring,
    _home: tempfile::TempDir,
}

impl Play {
    fn new(name: &str, players: usize, seed: u64, format: Version) -> Play {
        let home = tempfile::tempdir().expect("a folder");
        std::fs::write(
            home.path().join("referee.key"),
            format!("{}\n", "42".repeat(32)),
        )
        .expect("key");
        let keyring = Keyring::at(home.path());
        let names = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"];
        let seed = Seed::from_hex(&format!("{seed:064x}")).expect("a seed");
        let request = NewGame {
            players: names[..players].iter().map(|n| parse_player(n)).collect(),
            seed: Some(seed.clone()),
            format: Some(format),
            ..NewGame::default()
        };
        let bytes = pbem::ops::driver(name)
            .expect("a game")
            .create(request, &keyring)
            .expect("created");
        let game = pbem::ops::open_bytes(&bytes, Some(&keyring), true).expect("opens");
        Play {
            game,
            seed,
            keyring,
            _home: home,
        }
    }

    fn to_move(&self) -> Vec<String> {
        let view = self.game.view(None, None).expect("a view");
        view["to_move"]
            .as_array()
            .expect("to_move")
            .iter()
            .filter_map(|name| name.as_str().map(str::to_string))
            .collect()
    }

    fn apply(&mut self, player: &str, text: &str) -> Result<u64, String> {
        self.game
            .apply(&self.keyring, player, text)
            .map(|outcome| outcome.turn)
            .map_err(|error| format!("{player} {text:?}: {error}"))
    }

    fn records(&self) -> Vec<Value> {
        let file: Value = serde_json::from_slice(self.game.bytes()).expect("JSON");
        file["records"].as_array().expect("records").clone()
    }

    /// The draws of the moves standing, in the order they stand, each record's in
    /// order, hidden ones opened with the seed (a hidden draw's commitment is salted
    /// by its turn, which a record taken back moves on; what it drew does not move):
    /// a file's whole future as far as chance goes.
    fn standing_draws(&self) -> Vec<(u64, u64)> {
        let file: Value = serde_json::from_slice(self.game.bytes()).expect("JSON");
        let scope = Scope::Body(super::support::genesis_body(&file));
        let mut standing: Vec<(u64, Vec<(u64, u64)>)> = Vec::new();
        for record in file["records"].as_array().expect("records") {
            let turn = record["turn"].as_u64().expect("turn");
            match record.get("undo") {
                Some(undo) if undo["step"] == "undo" => {
                    let from = undo["turn"].as_u64().expect("turn");
                    standing.retain(|(made, _)| *made < from);
                }
                Some(_) => {}
                None => {
                    let draws = record["draws"].as_array().expect("draws");
                    let opened = (0u32..)
                        .zip(draws)
                        .map(|(j, draw)| {
                            let of = draw["of"].as_u64().expect("of");
                            let pick = match draw["pick"].as_u64() {
                                Some(pick) => pick,
                                None => {
                                    let salt = self.seed.salt_in(&scope, turn, j);
                                    let commit = draw["commit"].as_str().expect("commit");
                                    (0..of)
                                        .find(|&pick| {
                                            to_hex(&hidden_commitment(
                                                &salt,
                                                of as u32,
                                                pick as u32,
                                            )) == commit
                                        })
                                        .expect("the seed opens every hidden draw")
                                }
                            };
                            (of, pick)
                        })
                        .collect();
                    standing.push((turn, opened));
                }
            }
        }
        standing.into_iter().flat_map(|(_, draws)| draws).collect()
    }

    fn audit_passes(&self) -> Result<(), String> {
        let report = self.game.audit();
        if report.passed() {
            Ok(())
        } else {
            Err(report.problems.join("\n"))
        }
    }
}

/// A random complete game: its moves and the file's records at the end.
fn random_game(name: &str, players: usize, seed: u64, format: Version) -> (Vec<Made>, Play) {
    let mut play = Play::new(name, players, seed, format);
    let mut picker = DrawStream::for_testing(seed ^ 0x5eed);
    let mut made = Vec::new();
    for _ in 0..3000 {
        let waiting = play.to_move();
        if waiting.is_empty() {
            break;
        }
        let player = waiting[picker.index(waiting.len() as u32) as usize].clone();
        let text = play
            .game
            .sample_move(&player, &mut picker)
            .expect("a sample")
            .expect("a move to make");
        play.apply(&player, &text).expect("a legal move applies");
        made.push((player, text));
    }
    let rounds: Vec<Option<u64>> = play
        .records()
        .iter()
        .map(|record| record.get("round").and_then(Value::as_u64))
        .collect();
    let made = made
        .into_iter()
        .zip(rounds)
        .map(|((player, text), round)| Made {
            player,
            text,
            round,
        })
        .collect();
    (made, play)
}

/// The same move spelt otherwise: other case, other spaces.
fn respelt(text: &str, how: u32) -> String {
    match how {
        0 => text.to_uppercase(),
        1 => format!("  {}  ", text.replace(' ', "   ")),
        _ => text
            .chars()
            .enumerate()
            .map(|(i, c)| {
                if i % 2 == 0 {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect(),
    }
}

/// What a branch did besides playing the moves, to show the property was tried.
#[derive(Debug, Default, Clone, Copy)]
struct Tried {
    taken_back: usize,
    reordered: usize,
    merged: usize,
    split: usize,
    respelt: usize,
}

/// Plays `moves` again in a new game of the same seed, branching at random (chosen by
/// `branching`): moves taken back and made again, each round's moves in a random
/// arrival order (each seat's own in their order), placing turns split in two, moves
/// spelt otherwise. Then compares every draw of the moves standing with `drawn`.
fn branch(
    (name, players, seed, format): (&str, usize, u64, Version),
    moves: &[Made],
    drawn: &[(u64, u64)],
    branching: u64,
) -> Result<Tried, String> {
    let mut play = Play::new(name, players, seed, format);
    let mut chooser = DrawStream::for_testing(branching);
    let mut tried = Tried::default();
    let mut at = 0;
    while at < moves.len() {
        // The round: the moves that share its marker.
        let end = match moves[at].round {
            Some(round) => {
                at + moves[at..]
                    .iter()
                    .take_while(|m| m.round == Some(round))
                    .count()
            }
            None => at + 1,
        };
        let mut queue: Vec<Made> = moves[at..end].to_vec();
        let mut order: Vec<Made> = Vec::new();
        while !queue.is_empty() {
            // Any seat's next move: each seat's own moves stay in their order.
            let firsts: Vec<usize> = (0..queue.len())
                .filter(|&i| queue[..i].iter().all(|m| m.player != queue[i].player))
                .collect();
            let pick = firsts[chooser.index(firsts.len() as u32) as usize];
            let mut next = queue.remove(pick);
            // A seat's several messages of a round (placing turns) sent as one.
            let more: Vec<usize> = (pick..queue.len())
                .filter(|&i| queue[i].player == next.player)
                .collect();
            if !more.is_empty() && chooser.index(2) == 0 {
                let mut later: Vec<Made> = more.iter().rev().map(|&i| queue.remove(i)).collect();
                later.reverse();
                for made in later {
                    next.text = format!("{}; {}", next.text, made.text);
                }
                tried.merged += more.len();
            }
            order.push(next);
        }
        if order
            .iter()
            .zip(&moves[at..end])
            .any(|(a, b)| a.player != b.player)
        {
            tried.reordered += 1;
        }
        for made in &order {
            make(&mut play, made, &mut chooser, &mut tried)?;
            if chooser.index(4) == 0 {
                take_back_and_again(&mut play, &mut chooser, &mut tried)?;
            }
        }
        at = end;
    }
    let now = play.standing_draws();
    if now != drawn {
        let first = now.iter().zip(drawn).position(|(a, b)| a != b);
        return Err(format!(
            "the branch drew otherwise ({tried:?}): {} draws against {}, the first different at {first:?}",
            now.len(),
            drawn.len()
        ));
    }
    play.audit_passes()?;
    Ok(tried)
}

/// Makes one move as `made` says: maybe spelt otherwise, maybe (a placing turn of
/// several steps) in two messages.
fn make(
    play: &mut Play,
    made: &Made,
    chooser: &mut DrawStream,
    tried: &mut Tried,
) -> Result<(), String> {
    let steps: Vec<&str> = made.text.split("; ").collect();
    if made.text.starts_with("place ") && steps.len() >= 2 && chooser.index(2) == 0 {
        let cut = 1 + chooser.index(steps.len() as u32 - 1) as usize;
        let (first, rest) = (steps[..cut].join("; "), steps[cut..].join("; "));
        // A first part that is no turn of its own (a tile that joins the road only
        // through a later one) is refused and changes nothing: the turn is then made
        // whole.
        if play.apply(&made.player, &first).is_ok() {
            tried.split += 1;
            return play.apply(&made.player, &rest).map(|_| ());
        }
    }
    if chooser.index(3) == 0 {
        let spelt = respelt(&made.text, chooser.index(3));
        if play.apply(&made.player, &spelt).is_ok() {
            tried.respelt += 1;
            return Ok(());
        }
    }
    play.apply(&made.player, &made.text).map(|_| ())
}

/// Takes back the last one to three moves standing where the game allows it (a move
/// that drew, was sealed or opened one never is), every other player agreeing, then
/// makes them again in the order they were made.
fn take_back_and_again(
    play: &mut Play,
    chooser: &mut DrawStream,
    tried: &mut Tried,
) -> Result<(), String> {
    let view = play.game.view(None, None).map_err(|e| e.to_string())?;
    let names: Vec<String> = view["players"]
        .as_array()
        .map(|players| {
            players
                .iter()
                .filter_map(|p| p["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let asker = &names[chooser.index(names.len() as u32) as usize];
    let Ok(mut outcome) = play.game.take_back(&play.keyring, asker, UndoStep::Undo) else {
        return Ok(());
    };
    while !outcome.done {
        let Some(next) = outcome.waiting_for.first().cloned() else {
            return Err(format!("a request nobody can answer: {outcome:?}"));
        };
        outcome = play
            .game
            .take_back(&play.keyring, &next, UndoStep::Agree)
            .map_err(|error| format!("{next} agrees: {error}"))?;
    }
    tried.taken_back += outcome.moves.len();
    for (_, player, text) in &outcome.moves {
        play.apply(player, text)?;
    }
    Ok(())
}

/// Tries `branches` branches of `cases` random games of `name`, each with `players`
/// seats: the first branch that draws otherwise, if any, and what was tried in all.
fn branches_of(
    name: &str,
    players: &[usize],
    seed: u64,
    format: Version,
    branches: u64,
) -> Result<Tried, String> {
    let seats = players[(seed % players.len() as u64) as usize];
    let (moves, reference) = random_game(name, seats, seed, format);
    reference.audit_passes()?;
    let drawn = reference.standing_draws();
    let mut total = Tried::default();
    for branching in 0..branches {
        let tried = branch(
            (name, seats, seed, format),
            &moves,
            &drawn,
            seed * 31 + branching,
        )
        .map_err(|error| {
            format!("{name}, {seats} players, seed {seed}, branch {branching}: {error}")
        })?;
        total.taken_back += tried.taken_back;
        total.reordered += tried.reordered;
        total.merged += tried.merged;
        total.split += tried.split;
        total.respelt += tried.respelt;
    }
    Ok(total)
}

const GAMES: [(&str, &[usize]); 3] = [
    ("right-of-way", &[2]),
    ("triangle-auction", &[3, 4, 5]),
    ("desert-kingdom", &[2, 3, 4]),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, ..ProptestConfig::default() })]

    /// Format 4: no branch draws otherwise, in any game.
    #[test]
    fn every_branch_draws_as_the_standing_moves_say(seed in 1u64..1_000_000) {
        for (name, players) in GAMES {
            let tried = branches_of(name, players, seed, Version::V4, 2);
            prop_assert!(tried.is_ok(), "{}", tried.unwrap_err());
        }
    }
}

/// The branches tried do what they say: moves taken back, rounds reordered, placing
/// turns split and moves respelt, in each game where the game allows it.
#[test]
fn the_branches_try_every_kind_of_change() {
    let mut seen = Vec::new();
    for (name, players) in GAMES {
        let tried =
            branches_of(name, players, 7, Version::V4, 2).expect("no branch draws otherwise");
        seen.push((name, tried));
    }
    let of = |game: &str| {
        seen.iter()
            .find(|(name, _)| *name == game)
            .expect("played")
            .1
    };
    for (name, _) in GAMES {
        assert!(of(name).taken_back > 0, "{name}: {seen:?}");
        assert!(of(name).respelt > 0, "{name}: {seen:?}");
    }
    assert!(of("triangle-auction").reordered > 0, "{seen:?}");
    assert!(of("triangle-auction").merged > 0, "{seen:?}");
    assert!(of("triangle-auction").split > 0, "{seen:?}");
}

/// The same test finds format 3's fault: its draws follow the record before a round,
/// whose hash covers the turn number and the records taken back, so some branch of
/// every game draws otherwise.
#[test]
fn format_3_fails_the_same_test() {
    for (name, players) in GAMES {
        let failed = (1..=6).any(|seed| branches_of(name, players, seed, Version::V3, 2).is_err());
        assert!(failed, "{name}: every branch of format 3 drew alike");
    }
}

/// Every arrival order of a round's moves (each seat's own in their order), from every
/// order of seats, for the first sealed round (the cards) and the first placing round
/// of a triangle auction of four, then the same moves through the next rounds (random
/// branches above follow whole games): all draw alike.
#[test]
fn every_arrival_order_of_a_round_draws_alike_after_it() {
    let (name, seats, seed) = ("triangle-auction", 4, 11);
    let (moves, _) = random_game(name, seats, seed, Version::V4);
    let rounds: Vec<(usize, usize)> = ["card ", "place "]
        .iter()
        .map(|kind| {
            let start = moves
                .iter()
                .position(|m| m.round.is_some() && m.text.starts_with(kind))
                .expect("such a round");
            let round = moves[start].round;
            let end = start
                + moves[start..]
                    .iter()
                    .take_while(|m| m.round == round)
                    .count();
            (start, end)
        })
        .collect();
    for (start, end) in rounds {
        let seats_in: Vec<String> =
            moves[start..end]
                .iter()
                .map(|m| m.player.clone())
                .fold(Vec::new(), |mut seen, p| {
                    if !seen.contains(&p) {
                        seen.push(p);
                    }
                    seen
                });
        // The round and the two sealed rounds after it, each of which draws.
        let later = moves[end..]
            .iter()
            .enumerate()
            .filter(|(_, m)| m.text.starts_with("card "))
            .map(|(at, _)| end + at)
            .nth(seats * 2)
            .unwrap_or(moves.len());
        let mut outcomes: Vec<(Vec<usize>, Vec<Drawn>)> = Vec::new();
        for order in permutations(seats_in.len()) {
            // The round's moves, seat after seat in this order, each seat's in theirs.
            let mut reordered: Vec<&Made> = moves[..start].iter().collect();
            for &seat in &order {
                reordered.extend(
                    moves[start..end]
                        .iter()
                        .filter(|m| m.player == seats_in[seat]),
                );
            }
            reordered.extend(&moves[end..later]);
            let mut play = Play::new(name, seats, seed, Version::V4);
            for made in reordered {
                play.apply(&made.player, &made.text)
                    .expect("the same moves apply");
            }
            outcomes.push((order, play.standing_draws()));
        }
        assert!(outcomes.len() >= 6, "{} orders", outcomes.len());
        assert!(outcomes[0].1.len() > 2 * seats, "{:?}", outcomes[0]);
        for (order, drawn) in &outcomes[1..] {
            assert_eq!(
                drawn, &outcomes[0].1,
                "order {order:?} of turns {start}..{end}"
            );
        }
    }
}

/// Every order of `0..n`.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut all = Vec::new();
    for rest in permutations(n - 1) {
        for at in 0..=rest.len() {
            let mut order = rest.clone();
            order.insert(at, n - 1);
            all.push(order);
        }
    }
    all
}
