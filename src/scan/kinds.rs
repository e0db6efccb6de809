//! Which open containers are objects, for the scan of nested values
//! ([`Scanner::container`](super::Scanner)), which never recurses.

/// Whether each open container is an object, one bit per depth: the first
/// 64 levels in a word, deeper ones on the heap (only for bodies nested that
/// deep; `serde_json`'s skip stack allocates for any nesting).
pub(super) struct Kinds {
    near: u64,
    deep: Vec<u64>,
}

impl Kinds {
    pub(super) fn new() -> Kinds {
        Kinds {
            near: 0,
            deep: Vec::new(),
        }
    }

    /// Records the kind of the container at `depth`, which is at most one
    /// deeper than any recorded before.
    #[inline]
    pub(super) fn set(&mut self, depth: usize, object: bool) {
        let word = match depth / 64 {
            0 => &mut self.near,
            index => match self.deep_word(index - 1) {
                Some(word) => word,
                None => return,
            },
        };
        let bit = 1u64 << (depth % 64);
        if object {
            *word |= bit;
        } else {
            *word &= !bit;
        }
    }

    #[cold]
    fn deep_word(&mut self, index: usize) -> Option<&mut u64> {
        if index == self.deep.len() {
            self.deep.push(0);
        }
        self.deep.get_mut(index)
    }

    #[inline]
    pub(super) fn get(&self, depth: usize) -> bool {
        let word = match depth / 64 {
            0 => self.near,
            index => self.deep.get(index - 1).copied().unwrap_or(0),
        };
        word & (1u64 << (depth % 64)) != 0
    }
}
