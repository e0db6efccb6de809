//! The fake host's write effects (LIFECYCLE.md): a store that resolves a
//! locator (an id, or a URL ending in `/documents/<id>`), keeps update keys
//! per caller, archives and restores; or one fixed answer for every write.

use chopin_mcp::{
    ArchiveAnswer, ArchiveDocument, ArchivedDocument, Config, DocumentSummary, Endpoint, Outcome,
    RenameAnswer, RenameDocument, RestoreAnswer, RestoreDocument, UpdateAnswer, UpdateDocument,
    UpdatedDocument,
};
use serde_json::{Value, json};

use super::{Host, Request, Step, call, endpoint_with, mreq, rpc_error, rpc_result, si};

/// An endpoint offering every tool.
pub fn read_write() -> Endpoint {
    endpoint_with(Config::new().enable_creation().enable_lifecycle())
}

/// The members of `text(v)` (`text(v, error)` with `error`), `v` given as
/// its compact JSON: exactly what a tool result holds.
pub fn text_members(value: &str, error: bool) -> String {
    let text = serde_json::to_string(value).unwrap();
    let error = if error { r#","isError":true"# } else { "" };
    format!(r#""content":[{{"type":"text","text":{text}}}],"structuredContent":{value}{error}"#)
}

/// A reply with id 1 whose result holds `members`, framed for the era.
pub fn framed(members: &str, modern: bool) -> String {
    if modern {
        rpc_result(
            "1",
            &format!(r#"{{"resultType":"complete",{members},{}}}"#, si()),
        )
    } else {
        rpc_result("1", &format!("{{{members}}}"))
    }
}

/// `tools/call` of `name` with `arguments`, id 1, in the handshake era or
/// in 2026-07-28.
pub fn tool_call(name: &str, arguments: &Value, modern: bool) -> Request {
    if modern {
        mreq("tools/call", json!({"name": name, "arguments": arguments}))
    } else {
        Request::post(&call(json!(1), name, arguments.clone()))
    }
}

/// Calls `name` in both eras, on hosts made by `host`, and asserts a 200
/// whose result is exactly `members` and the host's steps between
/// authentication and the response.
pub fn assert_result(
    endpoint: &Endpoint,
    host: impl Fn() -> Host,
    name: &str,
    arguments: &Value,
    members: &str,
    steps: &[Step],
) {
    for modern in [false, true] {
        let request = tool_call(name, arguments, modern);
        let (reply, transcript) = request.exchange_with(endpoint, &host);
        assert_eq!(
            (reply.status, reply.text()),
            (200, framed(members, modern).as_str()),
            "{name} {arguments}"
        );
        let mut expected = vec![Step::Authenticate];
        expected.extend_from_slice(steps);
        expected.push(Step::Respond(200));
        assert_eq!(transcript, expected, "{name} {arguments}");
    }
}

/// Calls `name` in both eras and asserts its argument refusal: the
/// `-32602` error `message` in the handshake era, the error result whose
/// text is `message` in 2026-07-28; and that the host was not asked.
pub fn assert_refused(endpoint: &Endpoint, name: &str, arguments: &Value, message: &str) {
    for modern in [false, true] {
        let (reply, transcript) = tool_call(name, arguments, modern).exchange(endpoint);
        let expected = if modern {
            let members = format!(
                r#""content":[{{"type":"text","text":{}}}],"isError":true"#,
                serde_json::to_string(message).unwrap()
            );
            framed(&members, true)
        } else {
            rpc_error("1", -32602, message)
        };
        assert_eq!(
            (reply.status, reply.text()),
            (200, expected.as_str()),
            "{name} {arguments}"
        );
        assert_eq!(
            transcript,
            [Step::Authenticate, Step::Respond(200)],
            "{name} {arguments}: the host was asked"
        );
    }
}

/// When the fake store archives a document.
pub const ARCHIVED_AT: &str = "2026-08-23T12:34:56.000Z";

/// How the fake host answers the write effects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writing {
    /// Like a real store (LIFECYCLE.md §2–§4), with every duty: a document
    /// the caller may not see is `unavailable`.
    Store,
    /// This answer to every write effect that has it (a test asks only
    /// those that do).
    Always(Fixed),
}

/// A write answer without a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fixed {
    Conflict,
    RevisionConflict(u64),
    Locked,
    Protected,
    Archived,
    Forbidden,
    Unavailable,
}

impl Fixed {
    fn update(self) -> UpdateAnswer<'static> {
        match self {
            Fixed::Conflict => UpdateAnswer::Conflict,
            Fixed::RevisionConflict(revision) => UpdateAnswer::RevisionConflict(revision),
            Fixed::Locked => UpdateAnswer::Locked,
            Fixed::Protected => UpdateAnswer::Protected,
            Fixed::Archived => UpdateAnswer::Archived,
            Fixed::Forbidden => UpdateAnswer::Forbidden,
            Fixed::Unavailable => UpdateAnswer::Unavailable,
        }
    }

    fn rename(self) -> RenameAnswer<'static> {
        match self {
            Fixed::Conflict => RenameAnswer::Conflict,
            Fixed::Archived => RenameAnswer::Archived,
            Fixed::Forbidden => RenameAnswer::Forbidden,
            Fixed::Unavailable => RenameAnswer::Unavailable,
            other => panic!("{other:?} is no answer to a rename"),
        }
    }

    fn archive(self) -> ArchiveAnswer<'static> {
        match self {
            Fixed::Forbidden => ArchiveAnswer::Forbidden,
            Fixed::Unavailable => ArchiveAnswer::Unavailable,
            other => panic!("{other:?} is no answer to an archive"),
        }
    }

    fn restore(self) -> RestoreAnswer<'static> {
        match self {
            Fixed::Forbidden => RestoreAnswer::Forbidden,
            Fixed::Unavailable => RestoreAnswer::Unavailable,
            other => panic!("{other:?} is no answer to a restore"),
        }
    }
}

impl Host {
    /// The index of the document `locator` names that `caller` may see.
    pub(super) fn resolve(&self, caller: &str, locator: &str) -> Option<usize> {
        self.documents.iter().position(|(repository, document)| {
            let named = locator == document.id
                || locator
                    .strip_suffix(document.id.as_str())
                    .is_some_and(|prefix| prefix.ends_with("/documents/"));
            named && self.may_see(caller, repository)
        })
    }

    pub(super) fn update(&mut self, update: UpdateDocument<String>) -> Outcome<String> {
        let input = update.update().clone();
        self.transcript.push(Step::Update(input.id.clone()));
        self.update_inputs.push(input.clone());
        self.clients.push(update.client().clone());
        if let Writing::Always(fixed) = self.writing {
            return update.answer(fixed.update());
        }
        let caller = update.caller().clone();
        let Some(index) = self.resolve(&caller, &input.id) else {
            return update.answer(UpdateAnswer::Unavailable);
        };
        let key = (caller, input.idempotency_key.clone());
        match self.updated.get(&key) {
            Some((fingerprint, stored)) if *fingerprint == input.fingerprint => {
                return update.answer(UpdateAnswer::Replayed(stored));
            }
            Some(_) => return update.answer(UpdateAnswer::Conflict),
            None => {}
        }
        let document = &mut self.documents[index].1;
        if self.archived.contains_key(&document.id) {
            return update.answer(UpdateAnswer::Archived);
        }
        if document.revision != input.revision {
            return update.answer(UpdateAnswer::RevisionConflict(document.revision));
        }
        document.source = input.plan.clone();
        document.revision += 1;
        let updated = UpdatedDocument {
            id: document.id.clone(),
            title: document.title.clone(),
            brief: document.brief.clone(),
            source: document.source.clone(),
            revision: document.revision,
            url: format!("/documents/{}", document.id),
        };
        self.updated
            .insert(key.clone(), (input.fingerprint, updated));
        update.answer(UpdateAnswer::Updated(&self.updated[&key].1))
    }

    pub(super) fn rename(&mut self, rename: RenameDocument<String>) -> Outcome<String> {
        self.transcript.push(Step::Rename(rename.id().to_owned()));
        self.rename_inputs
            .push((rename.id().to_owned(), rename.title().to_owned()));
        if let Writing::Always(fixed) = self.writing {
            return rename.answer(fixed.rename());
        }
        let Some(index) = self.resolve(rename.caller(), rename.id()) else {
            return rename.answer(RenameAnswer::Unavailable);
        };
        let document = &mut self.documents[index].1;
        if self.archived.contains_key(&document.id) {
            return rename.answer(RenameAnswer::Archived);
        }
        document.title = rename.title().to_owned();
        let renamed = DocumentSummary {
            archived_at: None,
            description: None,
            id: document.id.clone(),
            title: document.title.clone(),
        };
        rename.answer(RenameAnswer::Renamed(&renamed))
    }

    pub(super) fn archive(&mut self, archive: ArchiveDocument<String>) -> Outcome<String> {
        self.transcript.push(Step::Archive(archive.id().to_owned()));
        if let Writing::Always(fixed) = self.writing {
            return archive.answer(fixed.archive());
        }
        let Some(index) = self.resolve(archive.caller(), archive.id()) else {
            return archive.answer(ArchiveAnswer::Unavailable);
        };
        let document = &self.documents[index].1;
        let archived_at = self
            .archived
            .entry(document.id.clone())
            .or_insert_with(|| ARCHIVED_AT.to_owned());
        let archived = ArchivedDocument {
            description: None,
            id: document.id.clone(),
            title: document.title.clone(),
            archived_at: archived_at.clone(),
        };
        archive.answer(ArchiveAnswer::Archived(&archived))
    }

    pub(super) fn restore(&mut self, restore: RestoreDocument<String>) -> Outcome<String> {
        self.transcript.push(Step::Restore(restore.id().to_owned()));
        if let Writing::Always(fixed) = self.writing {
            return restore.answer(fixed.restore());
        }
        let Some(index) = self.resolve(restore.caller(), restore.id()) else {
            return restore.answer(RestoreAnswer::Unavailable);
        };
        let document = &self.documents[index].1;
        self.archived.remove(&document.id);
        let restored = DocumentSummary {
            archived_at: None,
            description: None,
            id: document.id.clone(),
            title: document.title.clone(),
        };
        restore.answer(RestoreAnswer::Restored(&restored))
    }
}
