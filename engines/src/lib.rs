//! Reference engines.
