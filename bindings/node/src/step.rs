//! The steps of an exchange that are no effect's answer: the start
//! (`start.rs`: a request's method and headers, and Protected Resource
//! Metadata), the body (`body.rs`: its chunks pushed and finished), and
//! the outcome every step and answer writes for JavaScript (`outcome.rs`,
//! with the parts that cross apart from it: a plan, a large body; the
//! implementation effects' host inputs in `implementation.rs`, the planner
//! effect's in `invoke.rs`); and a document URL's exchange (`document.rs`).

mod body;
mod document;
mod implementation;
mod invoke;
mod outcome;
mod start;
