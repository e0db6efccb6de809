//! A string escaped at one level keeping its blocks' masks, then at the
//! other from them: a tool result's text copy and its `structuredContent`
//! hold the same strings, and a block's bytes to escape are the same bytes
//! at either level, so the second copy need not look for them again.

use super::{Level, SEQUENCES, escape, escape_block};
use crate::lex::{holds_special, special_mask};

/// The mask of block `index`, `block` ([`special_mask`]; 0 without a
/// call when it holds nothing to escape): kept in `masks` (`KEEP`; they
/// start clean, so only a flagged block's is stored), or taken from it.
#[inline(always)]
fn block_mask<const KEEP: bool>(masks: &mut [u16], index: usize, block: &[u8; 16]) -> u32 {
    if !KEEP {
        if let Some(&kept) = masks.get(index) {
            return u32::from(kept);
        }
    }
    if !holds_special(block) {
        return 0;
    }
    let mask = special_mask(block);
    if let (true, Some(kept)) = (KEEP, masks.get_mut(index)) {
        // A block's mask has sixteen bits.
        *kept = mask as u16;
    }
    mask
}

/// The masks of a string's sixteen-byte blocks, as one escape of it found
/// them ([`write_contents_keeping`]), for the next escape of the same
/// string at the other level ([`write_contents_kept`]): a block's specials
/// are the same bytes at either level. `N` masks cover a string of up to
/// `16 × N − 1` bytes; the blocks past them are looked at again.
pub(crate) struct Masks<const N: usize>([u16; N]);

impl<const N: usize> Masks<N> {
    /// No masks yet.
    pub(crate) fn new() -> Self {
        Masks([0; N])
    }
}

/// [`write_contents`](super::write_contents), keeping the masks of `text`'s blocks in `masks`.
#[inline]
pub(crate) fn write_contents_keeping<const N: usize>(
    out: &mut Vec<u8>,
    text: &str,
    level: Level,
    masks: &mut Masks<N>,
) -> bool {
    match text.as_bytes().last_chunk::<16>() {
        Some(last) => escape_sized::<N, true>(out, last, text.as_bytes(), level, &mut masks.0),
        None => escape(out, text.as_bytes(), level),
    }
}

/// [`write_contents`](super::write_contents) of the `text` whose masks
/// [`write_contents_keeping`] kept in `masks`: each block escaped from its
/// kept mask, not looked at again. Always in line: with a short string's
/// escape in it ([`escape_sized`]), the compiler made it a call.
#[inline(always)]
pub(crate) fn write_contents_kept<const N: usize>(
    out: &mut Vec<u8>,
    text: &str,
    level: Level,
    masks: &mut Masks<N>,
) {
    match text.as_bytes().last_chunk::<16>() {
        Some(last) => escape_sized::<N, false>(out, last, text.as_bytes(), level, &mut masks.0),
        None => escape(out, text.as_bytes(), level),
    };
}

/// [`escape_keeping`] for a string whose masks take `N` words: in line
/// for a short one (a read's usual source: the call and its spills cost
/// more than its few blocks), a call for a long one (in line, its loop
/// kept less in registers: 3.9 KiB of markdown took 625 instructions more).
#[inline(always)]
fn escape_sized<const N: usize, const KEEP: bool>(
    out: &mut Vec<u8>,
    last: &[u8; 16],
    bytes: &[u8],
    level: Level,
    masks: &mut [u16],
) -> bool {
    if N <= SHORT {
        escape_keeping::<KEEP>(out, last, bytes, level, masks)
    } else {
        escape_called::<KEEP>(out, last, bytes, level, masks)
    }
}

/// The most masks of a string [`escape_sized`] escapes in line.
const SHORT: usize = 8;

/// [`escape_keeping`] as a call of its own.
#[inline(never)]
fn escape_called<const KEEP: bool>(
    out: &mut Vec<u8>,
    last: &[u8; 16],
    bytes: &[u8],
    level: Level,
    masks: &mut [u16],
) -> bool {
    escape_keeping::<KEEP>(out, last, bytes, level, masks)
}

/// [`escape`] of a text of at least sixteen bytes (`last`, its last
/// sixteen), each block's mask kept in `masks` while there is room (`KEEP`)
/// or taken from it: a block whose mask was kept is not looked at again.
/// The block that ends the text is counted after the whole ones, its mask
/// unshifted.
#[inline(always)]
fn escape_keeping<const KEEP: bool>(
    out: &mut Vec<u8>,
    last: &[u8; 16],
    bytes: &[u8],
    level: Level,
    masks: &mut [u16],
) -> bool {
    let table = &SEQUENCES[level as usize];
    let mut at = 0;
    let mut plain = true;
    while let Some(block) = bytes.get(at..).and_then(<[u8]>::first_chunk::<16>) {
        let mask = block_mask::<KEEP>(masks, at / 16, block);
        if mask != 0 {
            escape_block(out, block, mask, 0, table);
            plain = false;
        } else {
            out.extend_from_slice(block);
        }
        at += 16;
    }
    let rest = bytes.len() - at;
    if rest == 0 {
        return plain;
    }
    // Its first `from` bytes were written with the blocks before.
    let from = 16 - rest;
    let mask = block_mask::<KEEP>(masks, at / 16, last);
    if mask != 0 {
        let mask = mask >> from << from;
        escape_block(out, last, mask, from, table);
        return plain && mask == 0;
    }
    out.truncate(out.len() - from);
    out.extend_from_slice(last);
    plain
}
