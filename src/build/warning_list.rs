//! The warnings a kustomization's build gathers, in entry order, with a base's list shared
//! rather than copied.
//!
//! kustomize loads a base once per reference and prints its deprecation notices each time,
//! so kbuild, which builds a base once (build/memo.rs), replays the base's warnings for
//! every reference. Copied into each referrer, the list doubled at each level of a stacked
//! diamond (a base referenced twice, whose bases are referenced twice, ...): 16 levels made
//! 32,768 lines and 40 levels would not fit in memory. Here a base's list goes in behind an
//! `Arc`, so a copy costs a pointer whatever the depth, and [`WarningList::lines`] writes
//! out at most [`MAX_LINES`] of them, with one line saying how many more there were (kustomize
//! itself cannot finish such a build: it loads each base once per path to it).

use std::sync::Arc;

/// The most warning lines a build reports; past it, one line counts the rest. Far more
/// than any real build prints (each is one kustomization's notice or one entry's warning).
pub(crate) const MAX_LINES: usize = 100_000;

/// Warnings in entry order (see the module comment).
#[derive(Clone, Debug, Default)]
pub(crate) struct WarningList {
    items: Vec<Item>,
    /// How many lines the list stands for (saturating: a deep diamond repeats its base's
    /// notices 2^depth times).
    len: u64,
}

#[derive(Clone, Debug)]
enum Item {
    Line(String),
    /// A base's list, as many times as it was absorbed.
    Shared(Arc<WarningList>),
}

impl WarningList {
    /// Appends one warning.
    pub(crate) fn push(&mut self, line: String) {
        self.items.push(Item::Line(line));
        self.len = self.len.saturating_add(1);
    }

    /// Appends what a base's build gathered: a few lines are moved in, a longer list is
    /// shared (so that the list of a kustomization stays short to copy, whatever lies
    /// below it).
    pub(crate) fn absorb(&mut self, base: WarningList) {
        /// Lines moved rather than shared: copying a handful costs less than a pointer chase.
        const INLINE: usize = 4;
        if base.len == 0 {
            return;
        }
        self.len = self.len.saturating_add(base.len);
        if base.items.len() <= INLINE {
            self.items.extend(base.items);
        } else {
            self.items.push(Item::Shared(Arc::new(base)));
        }
    }

    /// The lines in order: at most [`MAX_LINES`], then one line counting those left out.
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut out = Vec::with_capacity(
            usize::try_from(self.len)
                .unwrap_or(MAX_LINES)
                .min(MAX_LINES),
        );
        self.write(&mut out);
        if self.len > out.len() as u64 {
            let more = self.len - out.len() as u64;
            out.push(format!(
                "{more} more warnings not shown: the same ones again, for bases that are \
                 referenced along many paths (kbuild reports at most {MAX_LINES})"
            ));
        }
        out
    }

    /// Appends the lines to `out` until it holds [`MAX_LINES`]; whether there is room left.
    fn write(&self, out: &mut Vec<String>) -> bool {
        for item in &self.items {
            if out.len() >= MAX_LINES {
                return false;
            }
            match item {
                Item::Line(line) => out.push(line.clone()),
                Item::Shared(list) => {
                    if !list.write(out) {
                        return false;
                    }
                }
            }
        }
        out.len() < MAX_LINES
    }
}

impl Extend<String> for WarningList {
    fn extend<I: IntoIterator<Item = String>>(&mut self, lines: I) {
        for line in lines {
            self.push(line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_lists_keep_order_and_count() {
        let mut base = WarningList::default();
        base.extend((0..6).map(|i| format!("b{i}")));
        let mut top = WarningList::default();
        top.push("top".into());
        top.absorb(base.clone());
        top.push("mid".into());
        top.absorb(base);
        let lines = top.lines();
        assert_eq!(lines.len(), 14);
        assert_eq!(lines[0], "top");
        assert_eq!(lines[1], "b0");
        assert_eq!(lines[7], "mid");
        assert_eq!(lines[13], "b5");
    }

    /// A stacked diamond 64 levels deep: 2^64 lines stand for it, bounded to write.
    #[test]
    fn a_deep_diamond_is_cut_off_with_a_count() {
        let mut list = WarningList::default();
        list.extend((0..5).map(|i| format!("w{i}")));
        for _ in 0..64 {
            let mut up = WarningList::default();
            up.push("level".into());
            up.absorb(list.clone());
            up.absorb(list);
            list = up;
        }
        let lines = list.lines();
        assert_eq!(lines.len(), MAX_LINES + 1);
        assert!(
            lines[MAX_LINES].contains("more warnings not shown"),
            "{}",
            lines[MAX_LINES]
        );
    }
}
