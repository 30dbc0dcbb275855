//! Small pieces of English the game's text is built from: counts with their noun,
//! lists as a sentence says them, a colour's rank. Play's refusals, the report, the
//! board and the list of moves all use them.

pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// "A", "A and B", "A, B and C".
pub(crate) fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Which colour by rank a player scores, in words: rank 0 is the best.
pub(crate) fn rank_name(rank: usize) -> &'static str {
    ["best", "2nd best", "3rd best", "4th best", "least"]
        .get(rank)
        .copied()
        .unwrap_or("least")
}

pub(crate) fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_as_sentences() {
        let three: Vec<String> = ["A", "B", "C"].iter().map(|s| (*s).to_string()).collect();
        assert_eq!(and_list(&three), "A, B and C");
        assert_eq!(and_list(&three[..2]), "A and B");
        assert_eq!(and_list(&three[..1]), "A");
        assert_eq!(plural(1, "chit", "chits"), "1 chit");
        assert_eq!(plural(0, "chit", "chits"), "0 chits");
        assert_eq!(capitalised("3rd best"), "3rd best");
        assert_eq!(capitalised("least"), "Least");
    }
}
