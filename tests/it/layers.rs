//! The shape of the house, read from the source: every import of a file of `src/`
//! points down the layers docs/ARCHITECTURE.md draws (its ```` ```layers ```` block, top
//! first), no files import each other in a circle, the rules of a game do no I/O, and no
//! file of the project is over 1,500 lines. The check reads text as the compiler would
//! resolve paths: `use` trees (nested braces, `self`, `super`, renames), paths written
//! inline (`crate::a::b::f()`), and `super::` paths; comments, string literals and code
//! compiled for tests only (`#[cfg(test)]` modules, inline or in their own file) are
//! left out, since they are not the design.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MOST_LINES: usize = 1_500;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The layers, top first: each line of the ```` ```layers ```` block names the top-level
/// modules of one layer, before any `#` comment.
fn layers() -> Vec<Vec<String>> {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let block = doc
        .split("```layers\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/ARCHITECTURE.md draws the layers in a ```layers block");
    block
        .lines()
        .map(|line| line.split('#').next().unwrap_or(""))
        .map(|line| {
            line.split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .filter(|names| !names.is_empty())
        .collect()
}

/// A file's path from the project's root, for messages.
fn shown(file: &Path) -> String {
    file.strip_prefix(root())
        .unwrap_or(file)
        .display()
        .to_string()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file of src/ ("engine::driver"; "" for lib.rs, "main" for the
/// binary's main.rs).
fn module_of(src: &Path, file: &Path) -> String {
    if file == src.join("main.rs") {
        return "main".to_string();
    }
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts.join("::")
}

/// The text with comments and string and character literals blanked out (lines kept),
/// so a doc line or a message that names a module is not taken for an import.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !ident_char_before(&chars, i)
        {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                out.push(blank(chars[j]));
                j += 1;
            }
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                if let Some(&inside) = chars.get(i) {
                    out.push(blank(inside));
                }
                i += 1;
            }
            i += 1;
        } else if c == '\'' && is_char_literal(&chars, i) {
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_char_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// `'x'` or `'\n'`, not a lifetime `'a`.
fn is_char_literal(chars: &[char], i: usize) -> bool {
    match chars.get(i + 1) {
        Some('\\') => true,
        Some(_) => chars.get(i + 2) == Some(&'\''),
        None => false,
    }
}

/// The text without `#[cfg(test)]` items (a test module, inline or declared), and the
/// names of the modules declared for tests only (their files are left out).
fn without_tests(code: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut test_modules = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        // The item: up to its `;` (a declaration) or its whole `{ ... }` body.
        let semi = after.find(';');
        let brace = after.find('{');
        let end = match (semi, brace) {
            (Some(s), brace) if brace.is_none_or(|b| s < b) => {
                let item = after[..s].trim();
                if let Some(name) = item.strip_prefix("mod ") {
                    test_modules.push(name.trim().to_string());
                }
                s + 1
            }
            (_, Some(b)) => {
                let mut depth = 0;
                let mut end = after.len();
                for (k, ch) in after[b..].char_indices() {
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = b + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (_, None) => after.len(),
        };
        rest = &after[end..];
    }
    out.push_str(rest);
    (out, test_modules)
}

/// Every path the code names from the crate's root: `use` trees expanded, and inline
/// `crate::`, `super::` and `self::` paths, each resolved against `here`.
fn named_paths(code: &str, here: &str, is_binary: bool) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = find_word(rest, "use") {
        let after = &rest[at + 3..];
        let Some(end) = after.find(';') else { break };
        let mut expanded = Vec::new();
        expand_tree(after[..end].trim(), Vec::new(), &mut expanded);
        paths.extend(expanded);
        rest = &after[end..];
    }
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .filter(|w| w.contains("::"))
        .collect();
    for word in words {
        paths.push(
            word.split("::")
                .filter(|part| !part.is_empty())
                .map(str::to_string)
                .collect(),
        );
    }
    paths
        .into_iter()
        .filter_map(|path| resolve(path, here, is_binary))
        .collect()
}

fn find_word(text: &str, word: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find(word) {
        let start = from + at;
        let end = start + word.len();
        let before_ok =
            start == 0 || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
        let after_ok = end < bytes.len() && bytes[end].is_ascii_whitespace();
        if before_ok && after_ok {
            return Some(start);
        }
        from = end;
    }
    None
}

/// `a::b::{c, d::{e, f as g}, self}` into `a::b::c`, `a::b::d::e`, ...
fn expand_tree(tree: &str, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = tree[..open]
            .split("::")
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect();
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let mut base = prefix;
        base.extend(head);
        let mut depth = 0;
        let mut start = 0;
        for (k, ch) in inner.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand_tree(&inner[start..k], base.clone(), out);
                    start = k + 1;
                }
                _ => {}
            }
        }
        expand_tree(&inner[start..], base, out);
    } else if !tree.is_empty() {
        let name = tree.split(" as ").next().unwrap_or(tree).trim();
        let mut path = prefix;
        path.extend(
            name.split("::")
                .map(str::trim)
                .filter(|p| !p.is_empty() && *p != "*" && *p != "self")
                .map(str::to_string),
        );
        out.push(path);
    }
}

/// A path as the module path it starts from the crate's root, or `None` for a path of
/// another crate or of std.
fn resolve(path: Vec<String>, here: &str, is_binary: bool) -> Option<Vec<String>> {
    let first = path.first()?.as_str();
    let mut base: Vec<String> = here
        .split("::")
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    match first {
        "crate" => Some(path[1..].to_vec()),
        "pbem" if is_binary => Some(path[1..].to_vec()),
        "super" | "self" => {
            let mut rest = path.as_slice();
            while let Some(step) = rest.first() {
                match step.as_str() {
                    "super" => {
                        base.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            Some(base)
        }
        _ => None,
    }
}

struct House {
    /// Module path to file, for every file compiled outside tests.
    files: BTreeMap<String, PathBuf>,
    /// Importing module to imported modules (the longest known module a path names).
    imports: BTreeMap<String, BTreeSet<String>>,
    /// Module to its code without comments, strings and tests.
    code: BTreeMap<String, String>,
}

fn read_house() -> House {
    let src = root().join("src");
    let mut all = Vec::new();
    rust_files(&src, &mut all);
    all.sort();
    let mut texts = BTreeMap::new();
    let mut test_only = BTreeSet::new();
    for file in &all {
        let module = module_of(&src, file);
        let (code, test_modules) =
            without_tests(&code_only(&std::fs::read_to_string(file).unwrap()));
        for name in test_modules {
            let child = if module.is_empty() {
                name
            } else {
                format!("{module}::{name}")
            };
            test_only.insert(child);
        }
        texts.insert(module, (file.clone(), code));
    }
    let mut files = BTreeMap::new();
    let mut code = BTreeMap::new();
    for (module, (file, text)) in texts {
        if test_only
            .iter()
            .any(|t| module == *t || module.starts_with(&format!("{t}::")))
        {
            continue;
        }
        files.insert(module.clone(), file);
        code.insert(module, text);
    }
    let mut imports = BTreeMap::new();
    for (module, text) in &code {
        let is_binary = files[module].ends_with("main.rs");
        let mut targets = BTreeSet::new();
        for path in named_paths(text, module, is_binary) {
            for k in (1..=path.len()).rev() {
                let name = path[..k].join("::");
                if files.contains_key(&name) {
                    if name != *module {
                        targets.insert(name);
                    }
                    break;
                }
            }
        }
        imports.insert(module.clone(), targets);
    }
    House {
        files,
        imports,
        code,
    }
}

fn top(module: &str) -> &str {
    module.split("::").next().unwrap_or("")
}

/// The circles among files: the strongly connected components of more than one file
/// (Tarjan's algorithm).
fn circles(imports: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        imports: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(walk: &mut Walk<'a>, node: &'a str) {
        let n = walk.index.len();
        walk.index.insert(node, n);
        walk.low.insert(node, n);
        walk.stack.push(node);
        walk.on_stack.insert(node);
        let imports = walk.imports;
        for next in imports.get(node).into_iter().flatten() {
            let next = next.as_str();
            if !walk.index.contains_key(next) {
                visit(walk, next);
                let low = walk.low[node].min(walk.low[next]);
                walk.low.insert(node, low);
            } else if walk.on_stack.contains(next) {
                let low = walk.low[node].min(walk.index[next]);
                walk.low.insert(node, low);
            }
        }
        if walk.low[node] == walk.index[node] {
            let mut component = Vec::new();
            while let Some(member) = walk.stack.pop() {
                walk.on_stack.remove(member);
                component.push(member.to_string());
                if member == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                walk.found.push(component);
            }
        }
    }
    let mut walk = Walk {
        imports,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in imports.keys() {
        if !walk.index.contains_key(node.as_str()) {
            visit(&mut walk, node);
        }
    }
    walk.found
}

#[test]
fn every_import_points_down_the_layers_and_none_runs_in_a_circle() {
    let layers = layers();
    let house = read_house();
    let layer_of = |module: &str| -> Option<usize> {
        let name = if module.is_empty() {
            "lib"
        } else {
            top(module)
        };
        layers
            .iter()
            .position(|layer| layer.iter().any(|m| m == name))
    };
    let mut faults = Vec::new();
    for (module, file) in &house.files {
        if layer_of(module).is_none() {
            faults.push(format!(
                "{} is in no layer of docs/ARCHITECTURE.md",
                shown(file)
            ));
        }
    }
    for (from, targets) in &house.imports {
        for to in targets {
            if let (Some(a), Some(b)) = (layer_of(from), layer_of(to)) {
                if from.is_empty() || to.is_empty() {
                    continue;
                }
                if b < a {
                    faults.push(format!(
                        "upward: {} imports {} ({} is above {})",
                        shown(&house.files[from]),
                        shown(&house.files[to]),
                        top(to),
                        top(from)
                    ));
                } else if b == a && top(from) != top(to) {
                    faults.push(format!(
                        "sideways: {} imports {} (one layer; one of them goes below the other)",
                        shown(&house.files[from]),
                        shown(&house.files[to])
                    ));
                }
            }
        }
    }
    for circle in circles(&house.imports) {
        let names: Vec<String> = circle.iter().map(|m| shown(&house.files[m])).collect();
        faults.push(format!("circle: {}", names.join(" <-> ")));
    }
    assert!(
        faults.is_empty(),
        "the house is out of shape:\n{}",
        faults.join("\n")
    );
}

#[test]
fn the_engine_names_no_game_and_no_bot_and_the_rules_do_no_io() {
    let house = read_house();
    let games: Vec<String> = std::fs::read_dir(root().join("src/games"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(games.len() >= 3, "the games' folders are found: {games:?}");
    let mut faults = Vec::new();
    for (module, code) in &house.code {
        let file = shown(&house.files[module]);
        if top(module) == "engine" {
            for game in &games {
                if code.contains(game.as_str()) {
                    faults.push(format!("{file} names the game `{game}`"));
                }
            }
            for bot in ["bots::", "BuiltIn", "Search", "Greedy"] {
                if code.contains(bot) {
                    faults.push(format!("{file} names the bots (`{bot}`)"));
                }
            }
        }
        if top(module) == "games" && module != "games" {
            for io in [
                "std::fs",
                "std::net",
                "std::process",
                "std::env",
                "std::thread",
                "std::time::SystemTime",
                "std::io::stdin",
                "std::io::stdout",
                "println!",
                "eprintln!",
                "print!",
                "File::",
            ] {
                if code.contains(io) {
                    faults.push(format!("{file} does I/O (`{io}`): the rules are pure"));
                }
            }
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn no_file_of_the_project_is_over_1500_lines() {
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches"] {
        rust_files(&root().join(dir), &mut files);
    }
    let long: Vec<String> = files
        .iter()
        .map(|file| (file, std::fs::read_to_string(file).unwrap().lines().count()))
        .filter(|(_, lines)| *lines > MOST_LINES)
        .map(|(file, lines)| format!("{}: {lines} lines", shown(file)))
        .collect();
    assert!(
        long.is_empty(),
        "files over {MOST_LINES} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_reader_finds_what_a_use_tree_and_an_inline_path_name() {
    let code = code_only(
        "use crate::a::{b, c::{d as e, self}, f::*};\n// crate::commented::out\nfn x() { super::g::h(); let s = \"crate::quoted\"; }\n#[cfg(test)]\nmod tests { use crate::only_tests; }\n#[cfg(test)]\nmod more;\n",
    );
    let (code, test_modules) = without_tests(&code);
    assert_eq!(test_modules, vec!["more".to_string()]);
    let mut found: Vec<String> = named_paths(&code, "x::y", false)
        .iter()
        .map(|p| p.join("::"))
        .collect();
    found.sort();
    found.dedup();
    assert_eq!(
        found,
        vec!["a", "a::b", "a::c", "a::c::d", "a::f", "x::g::h"]
    );
    let imports = BTreeMap::from([
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["c".to_string()])),
        ("c".to_string(), BTreeSet::from(["a".to_string()])),
        ("d".to_string(), BTreeSet::from(["a".to_string()])),
    ]);
    assert_eq!(
        circles(&imports),
        vec![vec!["a".to_string(), "b".to_string(), "c".to_string()]]
    );
}
