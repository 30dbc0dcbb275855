//! A small character canvas for ASCII boards: put strings at (x, y), render with
//! trailing spaces trimmed so mail clients and forum code blocks keep the layout.

/// The widest line of a board or a list of moves: what mail and forum code blocks show
/// without wrapping.
pub const WIDTH: usize = 78;

/// Words joined with spaces into lines of at most [`WIDTH`] columns, the first line
/// starting with `head` and the others indented by `indent`; a word longer than a line
/// stands alone on its line.
pub fn wrap_words(head: &str, words: &[String], indent: usize) -> String {
    let mut out = String::new();
    let mut line = head.to_string();
    for word in words {
        if !line.trim().is_empty() && line.chars().count() + 1 + word.chars().count() > WIDTH {
            out.push_str(line.trim_end());
            out.push('\n');
            line = " ".repeat(indent);
        } else if !line.ends_with(' ') && !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

/// A grid of characters that grows as text is put on it.
#[derive(Debug, Clone, Default)]
pub struct Canvas {
    rows: Vec<Vec<char>>,
}

impl Canvas {
    pub fn new() -> Self {
        Canvas::default()
    }

    /// Writes `text` starting at column `x` of line `y`, overwriting what was there.
    pub fn put(&mut self, x: usize, y: usize, text: &str) {
        if self.rows.len() <= y {
            self.rows.resize_with(y + 1, Vec::new);
        }
        let row = &mut self.rows[y];
        for (i, ch) in text.chars().enumerate() {
            let col = x + i;
            if row.len() <= col {
                row.resize(col + 1, ' ');
            }
            row[col] = ch;
        }
    }

    /// The character at (x, y), a space where nothing was put.
    pub fn get(&self, x: usize, y: usize) -> char {
        self.rows
            .get(y)
            .and_then(|row| row.get(x))
            .copied()
            .unwrap_or(' ')
    }

    /// The number of lines so far.
    pub fn height(&self) -> usize {
        self.rows.len()
    }

    /// The picture, one line per row, trailing spaces trimmed, ending with a newline.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for row in &self.rows {
            let line: String = row.iter().collect();
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn puts_and_trims() {
        let mut c = Canvas::new();
        c.put(2, 1, "ab  ");
        c.put(0, 0, "x");
        assert_eq!(c.render(), "x\n  ab\n");
        assert_eq!(c.get(3, 1), 'b');
        assert_eq!(c.get(9, 9), ' ');
    }
}
