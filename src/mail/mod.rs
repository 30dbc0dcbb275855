//! Mail: reading players' messages, composing notices from templates, sending.

pub mod intake;
