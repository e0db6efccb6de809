//! A document's URL (`Endpoint::document`): the request's method, id and
//! headers in, the caller's verdict, then the document the host read; the
//! core decides every answer (CORS, 405, 401/403/503, 404, 304, 200), as the
//! reference server's `/documents/<id>` does.

use chopin_mcp::{Document, DocumentOutcome};

use crate::answer::Verdict;
use crate::exchanges::{Core, Misuse, Pending};
use crate::wire;

impl Core {
    /// Starts the exchange for a request to the URL of document `id`
    /// (headers listed).
    pub fn document_start(
        &mut self,
        slot: u32,
        method: &str,
        id: &str,
        flat: &[u8],
    ) -> Result<&[u8], Misuse> {
        let headers = wire::listed(flat);
        let target = format!("/documents/{id}");
        let parts = chopin_mcp::RequestParts::new(method, &target, &headers);
        let outcome = self.endpoint.document(&parts, id);
        self.settle_document(slot, outcome)
    }

    /// Answers the document request's authentication in `slot`.
    pub fn document_authenticate(
        &mut self,
        slot: u32,
        verdict: Verdict,
        scopes: &[String],
    ) -> Result<&[u8], Misuse> {
        let auth = self.take(slot, "document authenticate", Pending::into_document_auth)?;
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
        self.settle_document(slot, outcome)
    }

    /// Answers the document request's read in `slot`: the document's
    /// canonical plan and revision, or `None` (404).
    pub fn document_answer(
        &mut self,
        slot: u32,
        found: Option<(&str, u64)>,
    ) -> Result<&[u8], Misuse> {
        let read = self.take(slot, "document read", Pending::into_document_read)?;
        let response = match found {
            None => read.answer(None),
            Some((source, revision)) => {
                let document = Document {
                    id: read.id().to_owned(),
                    source: source.to_owned(),
                    revision,
                    ..Document::default()
                };
                read.answer(Some(&document))
            }
        };
        self.settle_document(slot, DocumentOutcome::Respond(response))
    }

    /// Writes a document request's outcome: a response as `settle` writes
    /// one, `a` for its authentication, `d` and the id for its read.
    fn settle_document(
        &mut self,
        slot: u32,
        outcome: DocumentOutcome<()>,
    ) -> Result<&[u8], Misuse> {
        self.out.clear();
        let pending = match outcome {
            DocumentOutcome::Respond(response) => {
                if !self.heads.encode(&response, true, &mut self.out) {
                    return Ok(&self.out);
                }
                Pending::Reply(response)
            }
            DocumentOutcome::Authenticate(auth) => {
                self.out.push(b'a');
                Pending::DocumentAuthenticate(auth)
            }
            DocumentOutcome::Read(read) => {
                self.out.push(b'd');
                self.out.extend_from_slice(read.id().as_bytes());
                Pending::DocumentRead(read)
            }
        };
        self.put(slot, pending)?;
        Ok(&self.out)
    }
}
