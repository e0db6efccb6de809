//! The fake host's images (SURFACE.md §8): a store that keeps each upload's
//! bytes linked to the document its locator names (or gives one fixed
//! answer), and serves them back to callers who may see that document.

use bytes::Bytes;
use chopin_mcp::{
    Config, Endpoint, ImageAnswer, ImageOutcome, ImageType, Outcome, Response, StoreImage,
    StoreImageAnswer,
};

use super::{Host, Judged, Step, endpoint_with};

/// An endpoint offering every tool, `upload_image` included.
pub fn uploading() -> Endpoint {
    endpoint_with(
        Config::new()
            .enable_creation()
            .enable_lifecycle()
            .enable_upload(),
    )
}

/// What an upload effect carried, as the host received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upload {
    pub locator: String,
    pub image_type: ImageType,
    pub bytes: Bytes,
    pub sha256: [u8; 32],
    pub sha256_hex: String,
    pub path: String,
}

/// The fake host's image store.
#[derive(Debug, Default)]
pub struct Images {
    /// `None`: like a real store; else this answer to every upload.
    pub always: Option<StoreImageAnswer>,
    /// Every upload effect, in order.
    pub inputs: Vec<Upload>,
    /// Kept images: the document they are linked to, digest, type, bytes.
    pub stored: Vec<(String, [u8; 32], ImageType, Bytes)>,
    /// Reads answer `Unavailable`.
    pub unavailable: bool,
}

/// Standard padded base64 of `bytes`.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let word = chunk
            .iter()
            .enumerate()
            .fold(0u32, |word, (i, b)| word | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                char::from(ALPHABET[(word >> (18 - 6 * i) & 63) as usize])
            } else {
                '='
            });
        }
    }
    out
}

impl Host {
    pub(super) fn store_image(&mut self, store: StoreImage<String>) -> Outcome<String> {
        self.transcript
            .push(Step::StoreImage(store.locator().to_owned()));
        self.images.inputs.push(Upload {
            locator: store.locator().to_owned(),
            image_type: store.image_type(),
            bytes: store.bytes(),
            sha256: store.sha256(),
            sha256_hex: store.sha256_hex(),
            path: store.path(),
        });
        if let Some(answer) = self.images.always {
            return store.answer(answer);
        }
        let Some(index) = self.resolve(store.caller(), store.locator()) else {
            return store.answer(StoreImageAnswer::Unavailable);
        };
        let id = self.documents[index].1.id.clone();
        if self.archived.contains_key(&id) {
            return store.answer(StoreImageAnswer::Archived);
        }
        let kept = (id, store.sha256(), store.image_type(), store.bytes());
        if !self.images.stored.contains(&kept) {
            self.images.stored.push(kept);
        }
        store.answer(StoreImageAnswer::Stored)
    }

    /// Carries out an image request's effects until the endpoint responds:
    /// the same authentication as [`Host::drive`], and a read that finds an
    /// image only through a document the caller may see.
    pub fn drive_image(&mut self, mut outcome: ImageOutcome<String>) -> Response {
        loop {
            outcome = match outcome {
                ImageOutcome::Respond(response) => {
                    self.transcript.push(Step::Respond(response.status()));
                    return response;
                }
                ImageOutcome::Authenticate(auth) => {
                    self.transcript.push(Step::Authenticate);
                    match self.judge(auth.bearer_token()) {
                        Judged::Unavailable => auth.unavailable(),
                        Judged::Scoped(caller, granted) => auth.answer_scoped(caller, granted),
                        Judged::Caller(caller) => auth.answer(caller),
                    }
                }
                ImageOutcome::Read(read) => {
                    self.transcript.push(Step::ReadImage(read.sha256_hex()));
                    let answer = if self.images.unavailable {
                        ImageAnswer::Unavailable
                    } else {
                        let caller = read.caller();
                        let readable = |id: &String| {
                            self.documents
                                .iter()
                                .any(|(repo, doc)| doc.id == *id && self.may_see(caller, repo))
                        };
                        self.images
                            .stored
                            .iter()
                            .find(|(id, sha, _, _)| *sha == read.sha256() && readable(id))
                            .map_or(ImageAnswer::NotFound, |(_, _, kind, bytes)| {
                                ImageAnswer::Found(*kind, bytes.clone())
                            })
                    };
                    ImageOutcome::Respond(read.answer(answer))
                }
            };
        }
    }
}
