//! The game file as pbem writes it, line by line (see `driver::serialize`): genesis on
//! one line, each record on one, then the seed and the state. Knowing that layout lets
//! `apply` read only genesis, the head record and the state of a file it has verified
//! and written itself, and append to it, instead of parsing and re-checking every
//! record. Anything else (a file reformatted by hand, say) does not match the layout,
//! and the caller falls back to the full path.

/// The parts of a game file in pbem's own layout.
pub struct Layout<'a> {
    pub genesis: &'a str,
    /// The last record's line, if there is a record.
    pub head: Option<&'a str>,
    pub seed: &'a str,
    pub state: &'a str,
    /// Where the record lines end (before "\n],").
    records_end: usize,
}

impl<'a> Layout<'a> {
    /// Splits `bytes`; `None` when they are not in pbem's layout.
    pub fn parse(bytes: &'a [u8]) -> Option<Layout<'a>> {
        let text = std::str::from_utf8(bytes).ok()?;
        let rest = text.strip_prefix("{\"format\":\"pbem.game/1\",\n\"genesis\":")?;
        let (genesis, rest) = rest.split_once(",\n\"records\":[")?;
        let tail_at = rest.rfind("\n],\n\"seed\":")?;
        let (records, tail) = rest.split_at(tail_at);
        // The tail: the seed line and the state line, then the end of the file.
        let tail = tail.strip_prefix("\n],\n\"seed\":")?;
        let (seed, state) = tail.split_once(",\n\"state\":")?;
        let state = state.strip_suffix("}\n")?;
        if state.contains('\n') || seed.contains('\n') {
            return None;
        }
        // One record a line: JSON strings escape their newlines, so the last raw newline
        // in this region starts the last record. (How many records there are is the
        // head's turn; counting the lines would cost more than the rest of this.)
        let head = records.rfind('\n').map(|start| &records[start + 1..]);
        if head.is_some_and(|line| !line.starts_with('{')) || head.is_none() != records.is_empty() {
            return None;
        }
        let records_end = bytes.len() - rest.len() + tail_at;
        Some(Layout {
            genesis,
            head,
            seed,
            state,
            records_end,
        })
    }

    /// How many leading bytes of the file stay as they are when a record is appended:
    /// everything up to the end of the last record.
    pub fn kept(&self) -> usize {
        self.records_end
    }

    /// What follows the kept bytes once a record is appended: that record, then the new
    /// seed and state, each already JSON.
    pub fn added(&self, record: &str, seed: &str, state: &str) -> Vec<u8> {
        let mut out = Vec::with_capacity(record.len() + seed.len() + state.len() + 32);
        out.extend_from_slice(if self.head.is_none() { b"\n" } else { b",\n" });
        out.extend_from_slice(record.as_bytes());
        out.extend_from_slice(b"\n],\n\"seed\":");
        out.extend_from_slice(seed.as_bytes());
        out.extend_from_slice(b",\n\"state\":");
        out.extend_from_slice(state.as_bytes());
        out.extend_from_slice(b"}\n");
        out
    }
}
