//! `upload_image`'s answer, and the steps of an image URL (SURFACE.md §8):
//! its start, its authentication, and the host's answer to its read, whose
//! 200 body (bytes, not text) always crosses apart ([`Core::image_body`]).

use bytes::Bytes;
use chopin_mcp::{ImageAnswer, ImageOutcome, ImageType, RequestParts, Response, StoreImageAnswer};

use super::Verdict;
use crate::exchanges::{Core, Misuse, Pending};
use crate::wire;

/// The host's answer to an upload, by its `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UploadKind {
    /// Kept (now, or already): the result names the core's path.
    Uploaded,
    /// The document is archived.
    Archived,
    /// The caller may not change the document.
    Forbidden,
    /// No such document for this caller, or the store cannot keep it now.
    Unavailable,
    /// Past the host's quota.
    TooLarge,
}

impl UploadKind {
    pub(crate) fn of(code: u32) -> Result<UploadKind, Misuse> {
        Ok(match code {
            0 => UploadKind::Uploaded,
            1 => UploadKind::Archived,
            2 => UploadKind::Forbidden,
            3 => UploadKind::Unavailable,
            4 => UploadKind::TooLarge,
            _ => return Err(Misuse(format!("{code} is not an upload answer"))),
        })
    }
}

/// The host's answer to an image read, by its `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    /// Found for this caller, with its stored type and bytes.
    Found,
    /// Missing, or not the caller's to see: 404.
    NotFound,
    /// The store cannot answer now: 503.
    Unavailable,
}

impl ImageKind {
    pub(crate) fn of(code: u32) -> Result<ImageKind, Misuse> {
        Ok(match code {
            0 => ImageKind::Found,
            1 => ImageKind::NotFound,
            2 => ImageKind::Unavailable,
            _ => return Err(Misuse(format!("{code} is not an image answer"))),
        })
    }
}

impl Core {
    /// The bytes of the upload effect in `slot` (its outcome carries the
    /// rest of the host input).
    pub fn image_bytes(&self, slot: u32) -> Result<Bytes, Misuse> {
        match self.slots.get(slot as usize) {
            Some(Some(Pending::Upload(upload))) => Ok(upload.bytes()),
            _ => Err(Misuse(format!("no upload effect waits in slot {slot}"))),
        }
    }

    /// Answers the upload effect in `slot`.
    pub fn answer_upload(&mut self, slot: u32, kind: UploadKind) -> Result<&[u8], Misuse> {
        let upload = self.take(slot, "upload", Pending::into_upload)?;
        let outcome = upload.answer(match kind {
            UploadKind::Uploaded => StoreImageAnswer::Stored,
            UploadKind::Archived => StoreImageAnswer::Archived,
            UploadKind::Forbidden => StoreImageAnswer::Forbidden,
            UploadKind::Unavailable => StoreImageAnswer::Unavailable,
            UploadKind::TooLarge => StoreImageAnswer::QuotaExceeded,
        });
        self.settle(slot, outcome)
    }

    /// Starts the exchange of a request to `/images/<file>` in `slot`:
    /// `flat` is its headers, listed (`wire::listed`). The outcome is a
    /// response or `a` (authenticate).
    pub fn image_start(
        &mut self,
        slot: u32,
        method: &str,
        file: &str,
        flat: &[u8],
    ) -> Result<&[u8], Misuse> {
        let headers = wire::listed(flat);
        let parts = RequestParts::new(method, "", &headers);
        let outcome = self.endpoint.image(&parts, file);
        self.settle_image(slot, outcome)
    }

    /// Answers the image URL's authentication in `slot`. The outcome is a
    /// response or `i<sha256 hex><mime type>` (the read).
    pub fn image_authenticate(
        &mut self,
        slot: u32,
        verdict: Verdict,
        scopes: &[String],
    ) -> Result<&[u8], Misuse> {
        let auth = self.take(slot, "image authenticate", Pending::into_image_authenticate)?;
        let outcome = match verdict {
            Verdict::Refused => auth.answer(None),
            Verdict::Caller => auth.answer(Some(())),
            Verdict::Scoped => {
                let granted = self
                    .endpoint
                    .scopes()
                    .of_names(scopes.iter().map(String::as_str));
                auth.answer_scoped((), granted)
            }
            Verdict::Unavailable => auth.unavailable(),
        };
        self.settle_image(slot, outcome)
    }

    /// Answers the image read in `slot`: found (with the type it was stored
    /// as, by its media type, and its bytes), not found or unavailable. A
    /// media type that is none of the four is not found.
    pub fn answer_image(
        &mut self,
        slot: u32,
        kind: ImageKind,
        found: Option<(&str, Bytes)>,
    ) -> Result<&[u8], Misuse> {
        let answer = match (kind, found) {
            (ImageKind::Found, Some((mime, bytes))) => match ImageType::from_mime(mime) {
                Some(stored) => ImageAnswer::Found(stored, bytes),
                None => ImageAnswer::NotFound,
            },
            (ImageKind::Found, None) => return Err(Misuse("a found image is missing".into())),
            (ImageKind::NotFound, _) => ImageAnswer::NotFound,
            (ImageKind::Unavailable, _) => ImageAnswer::Unavailable,
        };
        let read = self.take(slot, "image", Pending::into_image_read)?;
        let response = read.answer(answer);
        self.respond_image(slot, response)
    }

    /// Takes the bytes of the image response in `slot` (its outcome
    /// carried the head alone); its slot is free again.
    pub fn image_body(&mut self, slot: u32) -> Result<Bytes, Misuse> {
        Ok(self.body(slot)?.into_body())
    }

    fn settle_image(&mut self, slot: u32, outcome: ImageOutcome<()>) -> Result<&[u8], Misuse> {
        self.out.clear();
        match outcome {
            ImageOutcome::Respond(response) => return self.respond_image(slot, response),
            ImageOutcome::Authenticate(auth) => {
                self.out.push(b'a');
                self.put(slot, Pending::ImageAuthenticate(auth))?;
            }
            ImageOutcome::Read(read) => {
                self.out.push(b'm');
                self.out.extend_from_slice(read.sha256_hex().as_bytes());
                self.out
                    .extend_from_slice(read.image_type().mime().as_bytes());
                self.put(slot, Pending::ImageRead(read))?;
            }
        }
        Ok(&self.out)
    }

    /// An image URL's response: a body of bytes (a 200's image) crosses
    /// apart, kept in `slot`; a text body goes with the head.
    fn respond_image(&mut self, slot: u32, response: Response) -> Result<&[u8], Misuse> {
        self.out.clear();
        let apart = response.status() == 200;
        if self.heads.encode_as(&response, apart, &mut self.out) {
            self.put(slot, Pending::Reply(response))?;
        }
        Ok(&self.out)
    }
}
