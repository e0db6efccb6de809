//! How a rename, an archive and a restore ended (LIFECYCLE.md §3–§4), on
//! either engine, and the time an archive records. Each engine's
//! transactions are its `lifecycle.rs`.

use std::time::{SystemTime, UNIX_EPOCH};

/// How a rename ended. Titles need not be unique, so there is no conflict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenameOutcome {
    /// The document has this title now (also when it had it already).
    Renamed { id: String, title: String },
    /// The document is archived.
    Archived,
    /// The caller may see the document but not write it (a read-only
    /// grant).
    Forbidden,
    /// No document the caller may see.
    Unavailable,
}

/// How an archive ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArchiveOutcome {
    /// The document is archived, since `archived_at` (RFC 3339 UTC with
    /// milliseconds, [`timestamp`]): the time of this archive, or of the
    /// earlier one when it already was.
    Archived {
        id: String,
        title: String,
        archived_at: String,
    },
    /// The caller may see the document but not write it (a read-only
    /// grant).
    Forbidden,
    /// No document the caller may see.
    Unavailable,
}

/// How a restore ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreOutcome {
    /// The document is live (also when it was not archived).
    Restored { id: String, title: String },
    /// The caller may see the document but not write it (a read-only
    /// grant).
    Forbidden,
    /// No document the caller may see.
    Unavailable,
}

/// `at` as RFC 3339 in UTC with milliseconds, `2026-08-23T12:34:56.000Z`
/// (a time before 1970 as 1970's first instant): how the store writes
/// `archivedAt`.
pub fn timestamp(at: SystemTime) -> String {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since.as_secs();
    let (year, month, day) = civil_date(seconds / 86_400);
    let of_day = seconds % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60,
        since.subsec_millis()
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, for days from the epoch on).
fn civil_date(days: u64) -> (u64, u64, u64) {
    // Days from 0000-03-01, in eras of 400 years (146,097 days).
    let days = days + 719_468;
    let era = days / 146_097;
    let of_era = days % 146_097;
    let year_of_era = (of_era - of_era / 1460 + of_era / 36_524 - of_era / 146_096) / 365;
    let of_year = of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    // Months from March, so that February's length comes last.
    let shifted_month = (5 * of_year + 2) / 153;
    let day = of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}
