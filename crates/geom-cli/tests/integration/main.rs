//! The `geom` binary as a user runs it, in one test binary: query lines
//! against answers computed here, exit statuses, renders, and every
//! example its help prints.

mod cli;
mod help_examples;
