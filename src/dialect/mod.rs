//! The Chopin plan dialect (DIALECT.md): parser, validator and canonicalizer.
