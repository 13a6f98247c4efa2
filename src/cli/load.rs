//! Loading a trace for a command that analyzes frames, and the messages for a trace without
//! frames: they live in the library (`single_trace`), shared with the Python extension.

pub use crate::single_trace::{load_trace, no_frames_message, no_match_message};
