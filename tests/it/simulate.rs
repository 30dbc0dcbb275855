//! `pbem simulate`: its JSON contract, repeatability, every game played to its end, and
//! the greedy bot measurably better than the random one.

use serde_json::Value;

use crate::support::Table;

/// Runs `pbem simulate ARGS --format json`: success, the report (or Null) and stderr.
fn simulate(args: &[&str]) -> (bool, Value, String) {
    let output = Table::new()
        .pbem()
        .arg("simulate")
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("runs");
    let report = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (
        output.status.success(),
        report,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn f(value: &Value) -> f64 {
    value.as_f64().expect("a number")
}

/// The fields the issue names, and the sums they promise.
fn check_contract(report: &Value, games: usize, players: usize) {
    assert_eq!(report["games"], games, "{report:#}");
    let seats = report["seats"].as_array().expect("seats");
    assert_eq!(seats.len(), players);
    let mut wins = 0.0;
    for (i, seat) in seats.iter().enumerate() {
        assert_eq!(seat["seat"], i);
        assert!(seat["bot"].is_string());
        let rate = f(&seat["win_rate"]);
        let [low, high] = [f(&seat["ci95"][0]), f(&seat["ci95"][1])];
        assert!(
            (0.0..=1.0).contains(&low) && low <= rate && rate <= high && high <= 1.0,
            "{seat}"
        );
        assert!((rate - f(&seat["wins"]) / games as f64).abs() < 1e-9);
        wins += f(&seat["wins"]);
    }
    let nobody = f(&report["nobody_wins"]);
    assert!(
        (wins + nobody - games as f64).abs() < 1e-6,
        "wins {wins} + nobody {nobody} != {games}"
    );
    assert!(report["shared"].as_u64().is_some());
    assert!(f(&report["games_per_second"]) > 0.0);
}

#[test]
fn every_game_and_player_count_plays_to_the_end_under_the_contract() {
    for (game, counts) in [
        ("right-of-way", &[2usize, 3, 4][..]),
        ("triangle-auction", &[3, 4, 5]),
        ("desert-kingdom", &[2, 3, 4]),
    ] {
        for &players in counts {
            let players_text = players.to_string();
            let mut args = vec![
                game,
                "--players",
                &players_text,
                "--games",
                "3",
                "--seed",
                "5eed",
            ];
            // Greedy in the first seat, random in the others: both kinds play every game.
            args.extend(["--bot", "greedy"]);
            for _ in 1..players {
                args.extend(["--bot", "random"]);
            }
            let (ok, report, err) = simulate(&args);
            assert!(ok, "{game} with {players}: {err}");
            check_contract(&report, 3, players);
            assert_eq!(report["seats"][0]["bot"], "greedy");
        }
    }
}

#[test]
fn the_same_seed_plays_the_same_games() {
    let args = [
        "triangle-auction",
        "--games",
        "6",
        "--seed",
        "abc",
        "--players",
        "3",
        "--bot",
        "greedy",
        "--bot",
        "random",
        "--bot",
        "random",
    ];
    let (ok, first, err) = simulate(&args);
    assert!(ok, "{err}");
    let (_, again, _) = simulate(&[&args[..], &["--threads", "1"]].concat());
    let (_, other, _) = simulate(&[
        "triangle-auction",
        "--games",
        "6",
        "--seed",
        "abd",
        "--players",
        "3",
    ]);
    let outcome = |report: &Value| {
        // Everything but the time the bots took, which no seed repeats.
        let mut seats = report["seats"].clone();
        for seat in seats.as_array_mut().expect("seats") {
            seat.as_object_mut().expect("a seat").remove("ms_per_move");
        }
        (
            seats,
            report["measures"].clone(),
            report["shared"].clone(),
            report["nobody_wins"].clone(),
            report["mean_moves"].clone(),
        )
    };
    assert_eq!(outcome(&first), outcome(&again));
    assert_ne!(
        outcome(&first),
        outcome(&other),
        "another seed, the same games"
    );
}

#[test]
fn bots_are_one_per_seat_and_known_by_name() {
    let (ok, _, err) = simulate(&[
        "right-of-way",
        "--players",
        "3",
        "--bot",
        "greedy",
        "--bot",
        "random",
    ]);
    assert!(!ok);
    assert!(err.contains("once per seat"), "{err}");
    let (ok, _, err) = simulate(&["right-of-way", "--bot", "clever", "--bot", "random"]);
    assert!(!ok);
    assert!(err.contains("random, greedy"), "{err}");
    let (ok, _, err) = simulate(&["chess", "--games", "1"]);
    assert!(!ok);
    assert!(err.contains("right-of-way"), "{err}");
    let (ok, _, err) = simulate(&["right-of-way", "--option", "nosuch=1", "--games", "1"]);
    assert!(!ok, "an unknown option is refused: {err}");
}

#[test]
fn greedy_beats_random_clearly() {
    // Over 60 games (greedy plays slowly in a debug build), seats swapped halfway so
    // that moving first favours neither, greedy's win-rate interval must lie wholly
    // above random's.
    let (ok, a, err) = simulate(&[
        "right-of-way",
        "--games",
        "30",
        "--seed",
        "1",
        "--bot",
        "greedy",
        "--bot",
        "random",
    ]);
    assert!(ok, "{err}");
    let (ok, b, err) = simulate(&[
        "right-of-way",
        "--games",
        "30",
        "--seed",
        "2",
        "--bot",
        "random",
        "--bot",
        "greedy",
    ]);
    assert!(ok, "{err}");
    let greedy = f(&a["seats"][0]["wins"]) + f(&b["seats"][1]["wins"]);
    let random = f(&a["seats"][1]["wins"]) + f(&b["seats"][0]["wins"]);
    let interval = |wins: f64| pbem::simulate::wilson95(wins, 60);
    let (g, r) = (interval(greedy), interval(random));
    assert!(
        g[0] > r[1],
        "greedy {greedy}/60 {g:?} vs random {random}/60 {r:?}"
    );
}

/// Each measure's groups take every seat of every game once, and each group's rate
/// lies in its interval and agrees with its wins.
fn check_measures(report: &Value, games: usize, players: usize, expected: &[&str]) {
    let measures = report["measures"].as_array().expect("measures");
    for name in expected {
        assert!(
            measures.iter().any(|m| m["measure"] == *name),
            "no measure {name:?} in {report:#}"
        );
    }
    for measure in measures {
        let groups = measure["groups"].as_array().expect("groups");
        assert!(groups.len() >= 2, "{measure}");
        let seats: u64 = groups
            .iter()
            .map(|g| g["seats"].as_u64().expect("seats"))
            .sum();
        assert_eq!(seats as usize, games * players, "{measure}");
        let wins: f64 = groups.iter().map(|g| f(&g["wins"])).sum();
        let seat_wins: f64 = report["seats"]
            .as_array()
            .expect("seats")
            .iter()
            .map(|s| f(&s["wins"]))
            .sum();
        assert!((wins - seat_wins).abs() < 1e-6, "{measure}");
        for group in groups {
            let n = group["seats"].as_u64().expect("seats");
            let [low, high] = [f(&group["ci95"][0]), f(&group["ci95"][1])];
            let rate = f(&group["win_rate"]);
            assert!(low <= rate && rate <= high, "{group}");
            if n > 0 {
                assert!(
                    (rate - f(&group["wins"]) / n as f64).abs() < 1e-9,
                    "{group}"
                );
            }
        }
    }
    let [low, high] = [
        f(&report["nobody_wins_ci95"][0]),
        f(&report["nobody_wins_ci95"][1]),
    ];
    let nobody = f(&report["nobody_wins"]) / games as f64;
    assert!(low <= nobody && nobody <= high);
}

#[test]
fn each_game_reports_its_own_questions_and_the_counts_add_up() {
    let (ok, dk, err) = simulate(&[
        "desert-kingdom",
        "--players",
        "3",
        "--games",
        "4",
        "--seed",
        "3",
    ]);
    assert!(ok, "{err}");
    check_measures(
        &dk,
        4,
        3,
        &[
            "turn order",
            "oases held",
            "mines held",
            "city on turn 1, by quarter",
            "city tile played from hand, by quarter",
        ],
    );
    assert_eq!(dk["options"]["entry"], "a1", "the defaults are reported");
    let (ok, row, err) = simulate(&["right-of-way", "--games", "4", "--seed", "3"]);
    assert!(ok, "{err}");
    check_measures(
        &row,
        4,
        2,
        &[
            "turn order",
            "right-of-way bought (tiles turned face down in the game)",
            "right-of-way bought against the other player",
            "right-of-way standing at the end",
        ],
    );
    // Exactly one of the two players moved first in each game.
    let first = &row["measures"][0]["groups"][0];
    assert_eq!(first["seats"], 4, "{first}");
    let (ok, ta, err) = simulate(&[
        "triangle-auction",
        "--players",
        "3",
        "--games",
        "3",
        "--seed",
        "3",
        "--option",
        "track_cap=10",
        "--option",
        "area=9",
    ]);
    assert!(ok, "{err}");
    check_measures(
        &ta,
        3,
        3,
        &["final improvement (the colour scored)", "areas enclosed"],
    );
    assert_eq!(ta["options"]["track_cap"], "10");
    assert_eq!(ta["options"]["area"], "9");
}

/// The measure `turn order` groups by the player who took the first turn, which the
/// desert kingdom draws (D1), not by seat 0: in one-game runs the group `first` is
/// exactly the seat the report says moved first, and over a few seeds that is not
/// always seat 0.
#[test]
fn turn_order_first_is_the_player_who_moved_first() {
    let mut not_seat_0 = 0;
    for seed in ["1", "2", "3", "4", "5", "6", "7", "8"] {
        let (ok, report, err) = simulate(&["desert-kingdom", "--games", "1", "--seed", seed]);
        assert!(ok, "{err}");
        let seats = report["seats"].as_array().expect("seats");
        let firsts: Vec<usize> = (0..seats.len())
            .filter(|&seat| seats[seat]["moved_first"] == 1)
            .collect();
        assert_eq!(firsts.len(), 1, "one seat moved first: {report:#}");
        let first = firsts[0];
        let measure = report["measures"]
            .as_array()
            .expect("measures")
            .iter()
            .find(|m| m["measure"] == "turn order")
            .expect("the measure turn order");
        let groups = &measure["groups"];
        assert_eq!(groups[0]["group"], "first");
        assert_eq!(groups[0]["seats"], 1);
        for (group, seat) in [(0, first), (1, 1 - first)] {
            assert_eq!(
                (&groups[group]["wins"], &groups[group]["mean_score"]),
                (&seats[seat]["wins"], &seats[seat]["mean_score"]),
                "seed {seed}: group {group} is seat {seat}: {report:#}"
            );
        }
        if first != 0 && seats[0]["mean_score"] != seats[1]["mean_score"] {
            not_seat_0 += 1;
        }
    }
    assert!(
        not_seat_0 > 0,
        "seat 1 moved first (with another score) in some game"
    );
}

/// Every game says who moved first in each game, and the triangle auction (whose
/// first bidder is drawn) has the measure too; where a game breaks its scores down
/// (the desert kingdom, the triangle auction), the parts add up to the scores and the
/// shares of the parts that gain to 1.
#[test]
fn every_game_reports_who_moved_first_and_where_the_points_came_from() {
    for (game, players) in [
        ("right-of-way", "2"),
        ("triangle-auction", "3"),
        ("desert-kingdom", "3"),
    ] {
        let (ok, report, err) =
            simulate(&[game, "--players", players, "--games", "4", "--seed", "9"]);
        assert!(ok, "{err}");
        let seats = report["seats"].as_array().expect("seats");
        let moved_first: u64 = seats
            .iter()
            .map(|s| s["moved_first"].as_u64().expect("moved_first"))
            .sum();
        assert_eq!(moved_first, 4, "{game}: one first player a game");
        let order = report["measures"]
            .as_array()
            .expect("measures")
            .iter()
            .find(|m| m["measure"] == "turn order")
            .unwrap_or_else(|| panic!("{game}: no measure turn order"));
        assert_eq!(order["groups"][0]["seats"], 4, "{game}: {order}");
        let parts = report["score_parts"].as_array().expect("score_parts");
        if game == "right-of-way" {
            assert!(parts.is_empty(), "{parts:?}");
            continue;
        }
        let total: f64 = parts.iter().map(|p| f(&p["points"])).sum();
        let scores: f64 = seats.iter().map(|s| 4.0 * f(&s["mean_score"])).sum();
        assert!(
            (total - scores).abs() < 1e-6,
            "{game}: {parts:?} vs {scores}"
        );
        let gained: f64 = parts
            .iter()
            .map(|p| f(&p["share"]))
            .filter(|&share| share > 0.0)
            .sum();
        assert!((gained - 1.0).abs() < 1e-9, "{game}: {parts:?}");
    }
    let (_, dk, _) = simulate(&["desert-kingdom", "--games", "2", "--seed", "9"]);
    let names: Vec<&str> = dk["score_parts"]
        .as_array()
        .expect("score_parts")
        .iter()
        .map(|p| p["part"].as_str().expect("a name"))
        .collect();
    assert!(names.contains(&"roads' networks"), "{names:?}");
}
