//! The outcome each step and answer writes for JavaScript (`src/wire.rs`
//! has the format): a response, or the next effect with its host input,
//! whose exchange is kept in its slot; and the parts that cross apart from
//! an outcome (a create's or update's plan, a large response body).

use chopin_mcp::{Brief, ClientInfo, Outcome, Response};
use serde::Serialize;

use crate::exchanges::{Core, Misuse, Pending};

/// The create effect's host input but its plan, in `CreateDocumentInput`'s
/// order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InputFields<'a> {
    idempotency_key: &'a str,
    repository: &'a str,
    base_branch: &'a str,
    base_commit: &'a str,
    title: &'a str,
    brief: &'a Brief,
    fingerprint: &'a str,
    /// Not the host input's: `create`'s third argument (SURFACE.md §11).
    client: Client<'a>,
}

/// The client an effect names (SURFACE.md §10): `{name, version}`, the
/// third argument of `create.create` and `update.update`.
#[derive(Serialize)]
struct Client<'a> {
    name: &'a str,
    version: &'a str,
}

impl<'a> From<&'a ClientInfo> for Client<'a> {
    fn from(client: &'a ClientInfo) -> Self {
        Client {
            name: &client.name,
            version: &client.version,
        }
    }
}

/// The upload effect's host input but its bytes: H's `{id, mimeType}`,
/// then the core's `{sha256, path}`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UploadFields<'a> {
    id: &'a str,
    mime_type: &'a str,
    sha256: &'a str,
    path: &'a str,
}

/// The update effect's host input but its plan, in
/// `UpdateDocumentInput`'s order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UpdateFields<'a> {
    id: &'a str,
    revision: u64,
    idempotency_key: &'a str,
    fingerprint: &'a str,
    /// Not the host input's: `update`'s third argument (SURFACE.md §11).
    client: Client<'a>,
}

impl Core {
    /// The plan of the create or update effect in `slot` (its outcome
    /// carries the rest of the host input).
    pub fn plan(&self, slot: u32) -> Result<&[u8], Misuse> {
        match self.slots.get(slot as usize) {
            Some(Some(Pending::Create(create))) => Ok(create.document().plan.as_bytes()),
            Some(Some(Pending::Update(update))) => Ok(update.update().plan.as_bytes()),
            _ => Err(Misuse(format!(
                "no create or update effect waits in slot {slot}"
            ))),
        }
    }

    /// Takes the response in `slot` whose body crosses apart (its outcome
    /// carried the head alone); its slot is free again.
    pub fn body(&mut self, slot: u32) -> Result<Response, Misuse> {
        self.take(slot, "reply", |pending| match pending {
            Pending::Reply(response) => Some(response),
            _ => None,
        })
    }

    /// Writes `outcome` for JavaScript, keeping an effect in `slot`.
    pub(crate) fn settle(&mut self, slot: u32, outcome: Outcome<()>) -> Result<&[u8], Misuse> {
        self.out.clear();
        let pending = match outcome {
            Outcome::Respond(response) => {
                if !self.heads.encode(&response, true, &mut self.out) {
                    return Ok(&self.out);
                }
                Pending::Reply(response)
            }
            Outcome::Authenticate(auth) => {
                self.out.push(b'a');
                Pending::Authenticate(auth)
            }
            Outcome::Body(intake) => {
                self.out.push(b'b');
                Pending::Body(intake)
            }
            Outcome::List(list) => {
                // `A`: archived documents asked for too (`includeArchived`).
                self.out
                    .push(if list.include_archived() { b'A' } else { b'l' });
                self.out.extend_from_slice(list.repository().as_bytes());
                Pending::List(list)
            }
            Outcome::Read(read) => {
                self.out.push(b'r');
                self.out.extend_from_slice(read.id().as_bytes());
                Pending::Read(read)
            }
            Outcome::Create(create) => {
                // The host input but its plan, as JSON; then the plan as it
                // is (a 256 KiB plan escaped into JSON and parsed back in
                // JavaScript cost more than the rest of the crossing).
                let input = create.document();
                let fields = serde_json::to_string(&InputFields {
                    idempotency_key: &input.idempotency_key,
                    repository: &input.repository,
                    base_branch: &input.base_branch,
                    base_commit: &input.base_commit,
                    title: &input.title,
                    brief: &input.brief,
                    fingerprint: &input.fingerprint,
                    client: create.client().into(),
                })
                // Strings only: serializing cannot fail.
                .unwrap_or_default();
                self.out.push(b'c');
                self.out.extend_from_slice(fields.as_bytes());
                Pending::Create(create)
            }
            Outcome::Update(update) => {
                // As create's: the fields as JSON, then the plan.
                let input = update.update();
                let fields = serde_json::to_string(&UpdateFields {
                    id: &input.id,
                    revision: input.revision,
                    idempotency_key: &input.idempotency_key,
                    fingerprint: &input.fingerprint,
                    client: update.client().into(),
                })
                // Strings and a number: serializing cannot fail.
                .unwrap_or_default();
                self.out.push(b'u');
                self.out.extend_from_slice(fields.as_bytes());
                Pending::Update(update)
            }
            Outcome::Rename(rename) => {
                push_parts(&mut self.out, b'n', rename.id(), rename.title());
                Pending::Rename(rename)
            }
            Outcome::Archive(archive) => {
                self.out.push(b'v');
                self.out.extend_from_slice(archive.id().as_bytes());
                Pending::Archive(archive)
            }
            Outcome::Restore(restore) => {
                self.out.push(b's');
                self.out.extend_from_slice(restore.id().as_bytes());
                Pending::Restore(restore)
            }
            Outcome::InvokePlanner(invoke) => {
                super::invoke::push_invoke(&mut self.out, &invoke);
                Pending::Invoke(invoke)
            }
            Outcome::StoreImage(upload) => {
                // The fields as JSON; the bytes cross apart (`image_bytes`).
                let fields = serde_json::to_string(&UploadFields {
                    id: upload.locator(),
                    mime_type: upload.image_type().mime(),
                    sha256: &upload.sha256_hex(),
                    path: &upload.path(),
                })
                // Strings only: serializing cannot fail.
                .unwrap_or_default();
                self.out.push(b'g');
                self.out.extend_from_slice(fields.as_bytes());
                Pending::Upload(upload)
            }
            Outcome::ReadImplementation(read) => {
                self.out.push(b'I');
                self.out.extend_from_slice(read.locator().as_bytes());
                Pending::ReadImplementation(read)
            }
            Outcome::StartImplementation(start) => {
                self.out.push(b'S');
                self.out
                    .extend_from_slice(&super::implementation::start_input(&start));
                Pending::StartImplementation(start)
            }
            Outcome::ReportLifecycle(report) => {
                self.out.push(b'L');
                self.out
                    .extend_from_slice(&super::implementation::report_input(&report));
                Pending::ReportLifecycle(report)
            }
        };
        self.put(slot, pending)?;
        Ok(&self.out)
    }
}

/// Appends `tag`, the length of `first` in UTF-16 units (as JavaScript
/// slices), `:`, `first`, then `second`.
fn push_parts(out: &mut Vec<u8>, tag: u8, first: &str, second: &str) {
    let length = first.encode_utf16().count();
    out.reserve(24 + first.len() + second.len());
    out.push(tag);
    out.extend_from_slice(length.to_string().as_bytes());
    out.push(b':');
    out.extend_from_slice(first.as_bytes());
    out.extend_from_slice(second.as_bytes());
}
