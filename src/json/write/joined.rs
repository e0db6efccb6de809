//! Fixed pieces of plain JSON text joined when the crate compiles: where
//! a tool result's text copy ends and its `structuredContent` begins, the
//! pieces on either side of [`BETWEEN`](super::BETWEEN) are stored as one.

/// A fixed piece of plain JSON text made of several (`}`, [`BETWEEN`](super::BETWEEN) and
/// the next value's opening), written as a [`Literal`](super::Literal) is at
/// [`Level::Plain`](super::Level::Plain): for pieces that meet only at that level, whose
/// escaped form would not fit a `Literal`'s room. Padded to `ROOM` bytes
/// and stored whole, then cut back; a piece longer than its room does not
/// compile.
pub(crate) struct Joined<const ROOM: usize = 32> {
    bytes: [u8; ROOM],
    len: u8,
}

impl<const ROOM: usize> Joined<ROOM> {
    /// `pieces` one after the other.
    pub(crate) const fn new(pieces: &[&str]) -> Joined<ROOM> {
        let mut joined = Joined {
            bytes: [0; ROOM],
            len: 0,
        };
        let mut piece = 0;
        while piece < pieces.len() {
            let text = pieces[piece].as_bytes();
            let mut at = 0;
            while at < text.len() {
                joined.bytes[joined.len as usize] = text[at];
                joined.len += 1;
                at += 1;
            }
            piece += 1;
        }
        joined
    }

    /// The piece, padded with zeros to `ROOM` bytes: for a piece stored
    /// whole where its length is known when the crate compiles.
    pub(crate) const fn padded(&self) -> [u8; ROOM] {
        self.bytes
    }

    /// Appends the piece.
    #[inline]
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        let kept = out.len() + usize::from(self.len);
        out.extend_from_slice(&self.bytes);
        out.truncate(kept);
    }
}
